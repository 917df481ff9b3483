// The PIN hash bound (main.ts): how many argon2id verifications per second this machine does with
// every core hashing at once, which no PIN-checked scenario can beat. The hash is a parameter, so
// that test/scripts/ can check the lanes and the note with a fake one.

/**
 * Hashes per second of `lanes` loops running at once, each `perLane` hashes one after another, after
 * one untimed warm-up hash per lane (the first hash of a thread allocates its memory).
 */
export async function hashesPerSecond(
  hash: () => Promise<unknown>,
  lanes: number,
  perLane: number,
): Promise<number> {
  const run = (n: number) =>
    Promise.all(
      Array.from({ length: lanes }, async () => {
        for (let i = 0; i < n; i++) await hash();
      }),
    );
  await run(1);
  const t0 = performance.now();
  await run(perLane);
  return (lanes * perLane) / ((performance.now() - t0) / 1000);
}

/** A PIN run's note: its hashes per second as a share of the bound measured right before it. */
export function hashBoundNote(rate: number, hashesPerUnit: number, bound: number): string {
  const share = Math.round((100 * rate * hashesPerUnit) / bound);
  return `${share}% of hash bound (${bound.toFixed(0)}/s measured just before)`;
}
