// Counter: increases, decreases or resets a named event counter (reference 7.1 "Counter"); core
// changes the counter's row in one statement, so concurrent requests lose no step.
import type { EventHandlerModule, OptionSpec } from './module.ts';
import { optionIsTrue } from './module.ts';

const NAME: OptionSpec = { type: 'str', required: true, description: 'The name of the counter.' };

export const counterModule: EventHandlerModule = {
  name: 'Counter',
  positions: ['post', 'pre'],
  actions: {
    increase_counter: { counter_name: NAME },
    decrease_counter: {
      counter_name: NAME,
      allow_negative_values: { type: 'bool', description: 'Let the counter go below 0.' },
    },
    reset_counter: { counter_name: NAME },
  },
  async run(action, run) {
    const name = run.options.counter_name ?? '';
    if (action === 'increase_counter') await run.counters.change(name, 1, false);
    else if (action === 'decrease_counter') {
      await run.counters.change(name, -1, optionIsTrue(run.options.allow_negative_values));
    } else if (action === 'reset_counter') await run.counters.reset(name);
    else throw new Error(`Counter: unknown action ${action}`);
    return true;
  },
};
