import { afterEach, describe, expect, it } from 'vitest';
import { stopSignal } from '../../src/http/stop-signal.ts';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

describe('stopSignal', () => {
  const before = new Map(SIGNALS.map((s) => [s, process.listeners(s)]));
  afterEach(() => {
    // The test process must stay stoppable by its runner.
    for (const s of SIGNALS)
      for (const l of process.listeners(s)) if (!before.get(s)!.includes(l)) process.off(s, l);
  });

  const added = (s: (typeof SIGNALS)[number]) => process.listenerCount(s) - before.get(s)!.length;

  it('resolves with the first signal and leaves a repeated one its default action', async () => {
    const stopped = stopSignal('default');
    process.emit('SIGINT');
    expect(await stopped).toBe('SIGINT');
    expect(added('SIGINT')).toBe(0);
  });

  it('keeps catching repeated signals in a cluster process', async () => {
    const stopped = stopSignal('ignore');
    process.emit('SIGTERM');
    process.emit('SIGTERM');
    expect(await stopped).toBe('SIGTERM');
    expect(added('SIGTERM')).toBe(1);
    expect(added('SIGINT')).toBe(1);
  });
});
