// EventCounter: records the value of the event counter a Counter event handler moved under its
// stats_key, resets the counter when asked (keeping steps taken after the read), leaves it when
// not, and records nothing for a counter that does not exist.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventCounterValues, fireEvent, saveEventDefinition } from '../../src/core/event/index.ts';
import { statsValues } from '../../src/core/monitoring/index.ts';
import { parseOptions, taskModule } from '../../src/task-modules/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../helpers/runtime.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');

describe.each(testDialects())('the EventCounter task module on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0 });
    await saveEventDefinition(t.ctx, {
      name: 'count logins',
      event: 'auth',
      handlermodule: 'Counter',
      action: 'increase_counter',
      options: { counter_name: 'logins' },
    });
  });
  afterEach(async () => t.close());

  const counter = taskModule('EventCounter');
  const run = (options: Record<string, string>) => counter.run(t.rt, parseOptions(counter, options));
  /** One /auth request as the Counter handler sees it (post position). */
  const login = () =>
    fireEvent(t.rt, { event: 'auth', caller: undefined, client: '10.0.0.1', params: {} }, 'post', {
      status: true,
      value: true,
    });
  const recorded = async (key: string) => (await statsValues(t.rt, key)).map(([, v]) => v);

  it('needs event_counter and stats_key', () => {
    expect(() => parseOptions(counter, { stats_key: 'k' })).toThrow(
      "Task module EventCounter needs the option 'event_counter'",
    );
    expect(() => parseOptions(counter, { event_counter: 'c' })).toThrow(
      "Task module EventCounter needs the option 'stats_key'",
    );
    expect(
      parseOptions(counter, { event_counter: 'c', stats_key: 'k', reset_event_counter: 'True' }),
    ).toEqual({
      event_counter: 'c',
      stats_key: 'k',
      reset_event_counter: true,
    });
  });

  it('records the counter the Counter handler incremented and resets it', async () => {
    for (let i = 0; i < 3; i++) await login();
    expect(await eventCounterValues(t.rt)).toEqual({ logins: 3 });
    expect(
      await run({ event_counter: 'logins', stats_key: 'login_rate', reset_event_counter: 'True' }),
    ).toEqual({
      recorded: 1,
      login_rate: 3,
    });
    expect(await eventCounterValues(t.rt)).toEqual({ logins: 0 });
    await login();
    t.setNow(new Date(T0.getTime() + 60_000));
    await run({ event_counter: 'logins', stats_key: 'login_rate', reset_event_counter: 'true' });
    expect(await statsValues(t.rt, 'login_rate')).toEqual([
      ['2026-03-01 12:00:00.000000+0000', 3],
      ['2026-03-01 12:01:00.000000+0000', 1],
    ]);
  });

  it('leaves the counter as it is without reset_event_counter', async () => {
    for (let i = 0; i < 2; i++) await login();
    await run({ event_counter: 'logins', stats_key: 'total' });
    await login();
    await run({ event_counter: 'logins', stats_key: 'total', reset_event_counter: 'false' });
    expect(await recorded('total')).toEqual([2, 3]);
    expect(await eventCounterValues(t.rt)).toEqual({ logins: 3 });
  });

  it('records nothing for a counter that does not exist', async () => {
    expect(await run({ event_counter: 'nope', stats_key: 'k', reset_event_counter: 'true' })).toEqual({
      recorded: 0,
    });
    expect(await recorded('k')).toEqual([]);
    expect(await eventCounterValues(t.rt)).toEqual({});
  });
});
