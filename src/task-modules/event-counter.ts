// EventCounter (reference 7.2): records the value of an event counter (the named counters the
// Counter event handler moves) as a monitoring value under `stats_key`, and with
// `reset_event_counter` starts the counter again. Read, record and reset are one transaction; the
// reset moves the counter back by the value recorded, so that a step taken meanwhile is not lost.
// A counter that no Counter action has created yet records nothing (privacyIDEA logs a warning).
import { readEventCounter } from '../core/event/index.ts';
import { writeStatsValue } from '../core/monitoring/index.ts';
import { runTransaction } from '../store/index.ts';
import type { TaskModule } from './task-module.ts';

export const eventCounter: TaskModule = {
  name: 'EventCounter',
  description:
    'Records the value of an event counter as a monitoring value, optionally resetting the counter.',
  options: {
    event_counter: { type: 'str', required: true, description: 'The name of the event counter to read.' },
    stats_key: { type: 'str', required: true, description: 'The monitoring stats key to record it under.' },
    reset_event_counter: {
      type: 'bool',
      required: false,
      description: 'Reset the event counter after recording its value.',
    },
  },
  async run(rt, options) {
    const name = String(options.event_counter);
    const key = String(options.stats_key);
    const value = await runTransaction(rt.store, async (trx) => {
      const read = await readEventCounter(trx, name, { reset: options.reset_event_counter === true });
      if (read !== undefined) await writeStatsValue(rt, key, read, { db: trx });
      return read;
    });
    if (value === undefined) {
      rt.log.warn(
        { event_counter: name },
        'EventCounter: the event counter does not exist, nothing recorded',
      );
      return { recorded: 0 };
    }
    return { recorded: 1, [key]: value };
  },
};
