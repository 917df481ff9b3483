// The log lines of dropped datagrams, at most one per source address and reason per minute: a flood
// (a misconfigured NAS, a scan, spoofed sources) must not fill the log. The datagrams left out are
// still counted (counters.ts, /metrics); the next line of that address and reason says how many
// were left out since, and the server's last line at shutdown how many in all.

/** One line per source address and reason in this time, ms. */
export const DROP_LOG_INTERVAL_MS = 60_000;
/**
 * Sources remembered at most. Beyond, with spoofed source addresses, the drops of new sources are
 * logged as one summary line per interval instead of one line each.
 */
const MAX_SOURCES = 10_000;

interface Source {
  /** When the last line of this source and reason was written. */
  at: number;
  /** Drops left out of the log since. */
  leftOut: number;
}

export interface DropLine {
  /** Whether to write a line now. */
  log: boolean;
  /** Drops of the same source and reason left out of the log since its last line. */
  leftOut: number;
}

export class DropLog {
  private readonly sources = new Map<string, Source>();

  private readonly now: () => number;

  /** The summary of the sources beyond MAX_SOURCES (key ''). */
  private overflow: Source = { at: Number.NEGATIVE_INFINITY, leftOut: 0 };

  /** Drops left out of the log since the start. */
  leftOutTotal = 0;

  constructor(now: () => number) {
    this.now = now;
  }

  /**
   * Whether the drop of a datagram from `address` for `reason` gets a line of its own; `overflow`
   * in the answer tells that it stands for the drops of many sources (the table is full).
   */
  next(address: string, reason: string): DropLine & { overflow: boolean } {
    const now = this.now();
    const key = `${reason}\u0000${address}`;
    let source = this.sources.get(key);
    if (!source) {
      if (this.sources.size >= MAX_SOURCES) this.forgetQuiet(now);
      if (this.sources.size >= MAX_SOURCES) return { ...this.take(this.overflow, now), overflow: true };
      source = { at: Number.NEGATIVE_INFINITY, leftOut: 0 };
      this.sources.set(key, source);
    }
    return { ...this.take(source, now), overflow: false };
  }

  private take(source: Source, now: number): DropLine {
    if (now - source.at < DROP_LOG_INTERVAL_MS) {
      source.leftOut++;
      this.leftOutTotal++;
      return { log: false, leftOut: source.leftOut };
    }
    const leftOut = source.leftOut;
    source.at = now;
    source.leftOut = 0;
    return { log: true, leftOut };
  }

  /** Forgets the sources whose last line is older than the interval (their left-out count too). */
  private forgetQuiet(now: number): void {
    for (const [key, source] of this.sources)
      if (now - source.at >= DROP_LOG_INTERVAL_MS) this.sources.delete(key);
  }
}
