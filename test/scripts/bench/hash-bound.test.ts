// The benchmark's PIN hash bound (scripts/bench/hash-bound.ts): lanes that hash at once, an untimed
// warm-up, and the note that compares a run with the bound measured before it.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { hashBoundNote, hashesPerSecond } from '../../../scripts/bench/hash-bound.ts';

/** A fake hash of `ms` per call that records how many ran at once and how many were called. */
function fakeHash(ms: (call: number) => number) {
  const seen = { calls: 0, running: 0, most: 0 };
  const hash = async () => {
    const call = seen.calls++;
    seen.running++;
    seen.most = Math.max(seen.most, seen.running);
    await sleep(ms(call));
    seen.running--;
  };
  return { hash, seen };
}

describe('bench hash bound', () => {
  it('lanes hash at once: 2 lanes of a 50 ms hash do about twice what one lane does', async () => {
    const one = fakeHash(() => 50);
    const two = fakeHash(() => 50);
    const [alone, both] = await Promise.all([
      hashesPerSecond(one.hash, 1, 4),
      hashesPerSecond(two.hash, 2, 4),
    ]);
    expect(alone).toBeGreaterThan(14);
    expect(alone).toBeLessThanOrEqual(20.5);
    expect(both / alone).toBeGreaterThan(1.7);
    expect(both / alone).toBeLessThan(2.3);
    // One warm-up hash per lane, then 4 each; never more at once than there are lanes.
    expect(one.seen).toMatchObject({ calls: 5, most: 1 });
    expect(two.seen).toMatchObject({ calls: 10, most: 2 });
  });

  it('the warm-up hash of each lane is not timed', async () => {
    // The first hash of each lane takes 400 ms; timed, it would halve the rate.
    const { hash } = fakeHash((call) => (call < 2 ? 400 : 50));
    const rate = await hashesPerSecond(hash, 2, 4);
    expect(rate).toBeGreaterThan(30);
    expect(rate).toBeLessThanOrEqual(41);
  });

  it('the note: the run against the bound measured just before it, rounded', () => {
    expect(hashBoundNote(60, 1, 66)).toBe('91% of hash bound (66/s measured just before)');
    expect(hashBoundNote(33, 2, 66.4)).toBe('99% of hash bound (66/s measured just before)');
    expect(hashBoundNote(70, 1, 65.6)).toBe('107% of hash bound (66/s measured just before)');
  });
});
