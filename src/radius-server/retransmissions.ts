// The retransmission cache (RFC 5080 section 2.2.2): a NAS that got no answer in time sends the
// same request again (same source port, identifier and Request Authenticator). It must get the
// answer of the first one, and the OTP in it must not be verified a second time (it would be
// refused as used, and the user locked out by a slow network). A retransmission that comes while
// the first request is still being checked waits for that answer.

/** How long an answer is kept for its retransmissions, in milliseconds. */
export const RETRANSMISSION_WINDOW_MS = 5000;
/** At most this many answers are kept; the oldest go first (a flood cannot exhaust memory). */
const MAX_ENTRIES = 10_000;

interface Entry {
  at: number;
  answer: Promise<Buffer | undefined>;
}

export class RetransmissionCache {
  private readonly entries = new Map<string, Entry>();

  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  static keyOf(
    client: string,
    address: string,
    port: number,
    identifier: number,
    authenticator: Buffer,
  ): string {
    return `${client}\u0000${address}\u0000${port}\u0000${identifier}\u0000${authenticator.toString('hex')}`;
  }

  /** The answer (or the pending answer) of an earlier copy of this request, or undefined. */
  lookup(key: string): Promise<Buffer | undefined> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at > RETRANSMISSION_WINDOW_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.answer;
  }

  /** Keeps the answer of a new request for its retransmissions. */
  remember(key: string, answer: Promise<Buffer | undefined>): void {
    this.expire();
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { at: this.now(), answer });
  }

  private expire(): void {
    const limit = this.now() - RETRANSMISSION_WINDOW_MS;
    // Insertion order is time order: stop at the first entry still fresh.
    for (const [key, entry] of this.entries) {
      if (entry.at >= limit) break;
      this.entries.delete(key);
    }
  }
}
