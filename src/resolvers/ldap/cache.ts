// What lookups found (users, and that there was none), for CACHE_TIMEOUT: while a user is cached,
// an authentication costs no search at all. Bounded: when full, the expired entries go, and if
// that is not enough the oldest tenth.

const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  expires: number;
}

export class LookupCache<V> {
  private readonly ttlMs: number;
  private readonly clock: () => Date;
  private readonly entries = new Map<string, Entry<V>>();

  constructor(ttlMs: number, clock: () => Date) {
    this.ttlMs = ttlMs;
    this.clock = clock;
  }

  /** The cached answer (which may be "none", undefined) in a box; no box when nothing is cached. */
  get(key: string): { value: V } | undefined {
    if (this.ttlMs === 0) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > this.clock().getTime()) return entry;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    if (this.ttlMs === 0) return;
    const now = this.clock().getTime();
    if (this.entries.size >= MAX_ENTRIES) this.makeRoom(now);
    this.entries.set(key, { value, expires: now + this.ttlMs });
  }

  private makeRoom(now: number): void {
    for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
    // Still full: drop the oldest tenth (a Map iterates in insertion order).
    let n = this.entries.size >= MAX_ENTRIES ? Math.ceil(MAX_ENTRIES / 10) : 0;
    for (const k of this.entries.keys()) {
      if (n-- <= 0) break;
      this.entries.delete(k);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
