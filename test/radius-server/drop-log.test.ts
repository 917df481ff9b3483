// The drop log's limit (src/radius-server/drop-log.ts): one line per source address and reason per
// minute with the count left out since, and with more sources than it remembers (spoofed
// addresses) one summary line per minute for the new ones, so that no flood writes a line per datagram.
import { describe, expect, it } from 'vitest';
import { DROP_LOG_INTERVAL_MS, DropLog } from '../../src/radius-server/drop-log.ts';

describe('DropLog', () => {
  it('one line per address and reason per minute, then the count left out', () => {
    let now = 0;
    const log = new DropLog(() => now);
    expect(log.next('192.0.2.1', 'unknown_client')).toEqual({ log: true, leftOut: 0, overflow: false });
    for (let i = 1; i <= 5; i++) expect(log.next('192.0.2.1', 'unknown_client').log).toBe(false);
    // Another reason or another address has its own line.
    expect(log.next('192.0.2.1', 'malformed').log).toBe(true);
    expect(log.next('192.0.2.2', 'unknown_client').log).toBe(true);
    now += DROP_LOG_INTERVAL_MS - 1;
    expect(log.next('192.0.2.1', 'unknown_client').log).toBe(false);
    now += 1;
    expect(log.next('192.0.2.1', 'unknown_client')).toEqual({ log: true, leftOut: 6, overflow: false });
    expect(log.leftOutTotal).toBe(6);
  });

  it('beyond 10 000 sources, new ones share one summary line per minute', () => {
    let now = 0;
    const log = new DropLog(() => now);
    let lines = 0;
    for (let i = 0; i < 10_000; i++) if (log.next(`10.0.${i >> 8}.${i & 255}`, 'unknown_client').log) lines++;
    expect(lines).toBe(10_000);
    const overflow = Array.from({ length: 1000 }, (_, i) =>
      log.next(`10.1.${i >> 8}.${i & 255}`, 'unknown_client'),
    );
    expect(overflow.filter((l) => l.log)).toHaveLength(1);
    expect(overflow.every((l) => l.overflow)).toBe(true);
    // A minute later the quiet sources are forgotten: new ones get lines of their own again.
    now += DROP_LOG_INTERVAL_MS;
    expect(log.next('10.2.0.1', 'unknown_client')).toEqual({ log: true, leftOut: 0, overflow: false });
  });
});
