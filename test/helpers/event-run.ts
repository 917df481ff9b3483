// An EventRun for unit tests of one handler module: every service a stub that does nothing, the
// fields a test cares about given as overrides.
import type { EventRun } from '../../src/event-handlers/module.ts';

export function eventRun(overrides: Partial<EventRun> & Pick<EventRun, 'position' | 'options'>): EventRun {
  return {
    event: 'validate_check',
    tags: {},
    log: () => undefined,
    token: undefined,
    counters: { change: async () => 0, reset: async () => undefined },
    mailer: { send: async () => undefined, addressOf: async () => undefined },
    now: new Date('2026-01-01T00:00:00Z'),
    enroll: async () => {
      throw new Error('enroll is not part of this test');
    },
    addTags: () => undefined,
    ...overrides,
  };
}
