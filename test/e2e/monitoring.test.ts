// Monitoring over HTTP (reference 7.3, spec "Monitoring endpoints"): the keys, a key's values in a
// window given with an offset, in ISO form or in the server's local time (bounds included, ascending,
// privacyIDEA's timestamp format), the last value, deleting a window with its count; a bad date a clear error that
// deletes nothing; an unknown key empty; the rights statistics_read / statistics_delete and one
// audit row per request; and the EventCounter task recording what a Counter event handler counted.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { writeStatsValue } from '../../src/core/monitoring/index.ts';
import { runPeriodicTaskNow, setPeriodicTask } from '../../src/core/periodictask/index.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const T0 = Date.parse('2026-03-01T12:00:00.250Z');
const at = (minute: number) => new Date(T0 + minute * 60_000);

describe.each(testDialects())('monitoring over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { reset: ['policies', 'audit'] }, (t) => ({ s, op, admin } = t));
  afterEach(async () => {
    for (const t of ['monitoringstats', 'eventhandler', 'eventcounter', 'periodictask_option'] as const)
      await s.rt.store.db.deleteFrom(t).execute();
    await s.rt.store.db.deleteFrom('periodictask_lastrun').execute();
    await s.rt.store.db.deleteFrom('periodictask').execute();
  });

  /** Values 0, 10, 20 … of `key` at T0 + 0, 1, 2 … minutes. */
  const series = async (key: string, count: number) => {
    for (let m = 0; m < count; m++) await writeStatsValue(s.rt, key, m * 10, { at: at(m) });
  };
  const get = (path: string, params: Record<string, string> = {}) => s.call('GET', path, params, admin);
  const values = async (key: string) =>
    (ok(await get(`/monitoring/${key}`)) as [string, number][]).map((p) => p[1]);

  it('lists the keys, the values of a key in a window and its last value', async () => {
    expect(ok(await get('/monitoring/'))).toEqual([]);
    await series('logins', 4);
    await series('total_tokens', 1);
    expect(ok(await get('/monitoring/'))).toEqual(['logins', 'total_tokens']);
    expect(ok(await get('/monitoring'))).toEqual(['logins', 'total_tokens']);
    expect(ok(await get('/monitoring/logins'))).toEqual([
      ['2026-03-01 12:00:00.250000+0000', 0],
      ['2026-03-01 12:01:00.250000+0000', 10],
      ['2026-03-01 12:02:00.250000+0000', 20],
      ['2026-03-01 12:03:00.250000+0000', 30],
    ]);
    // privacyIDEA's form with an offset, and ISO-8601; both bounds included.
    const window = { start: '2026-03-01 14:01:00.25+0200', end: '2026-03-01T07:02:00.250-05:00' };
    expect(ok(await get('/monitoring/logins', window))).toEqual([
      ['2026-03-01 12:01:00.250000+0000', 10],
      ['2026-03-01 12:02:00.250000+0000', 20],
    ]);
    expect(ok(await get('/monitoring/logins', { start: '2026-03-01 12:02Z' }))).toHaveLength(2);
    expect(ok(await get('/monitoring/logins', { end: '2026-03-01 12:00:00.25Z', start: '' }))).toHaveLength(
      1,
    );
    expect(ok(await get('/monitoring/logins/last'))).toBe(30);
    expect(ok(await get('/monitoring/total_tokens/last'))).toBe(0);
  });

  it('reads a date without an offset in the server’s local time zone', async () => {
    await series('logins', 4);
    const tz = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata'; // +05:30, no daylight saving time
    try {
      const window = { start: '2026-03-01 17:31:00.25', end: '2026-03-01T17:32:00.250' };
      expect((ok(await get('/monitoring/logins', window)) as [string, number][]).map((p) => p[1])).toEqual([
        10, 20,
      ]);
      expect(ok(await s.call('DELETE', '/monitoring/logins', { end: '2026-03-01 17:30:00.25' }, admin))).toBe(
        1,
      );
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    expect(await values('logins')).toEqual([10, 20, 30]);
  });

  it('answers an unknown key with an empty list, null and 0 deleted', async () => {
    await series('logins', 1);
    expect(ok(await get('/monitoring/nope'))).toEqual([]);
    expect(ok(await get('/monitoring/nope/last'))).toBeNull();
    expect(ok(await s.call('DELETE', '/monitoring/nope', {}, admin))).toBe(0);
    expect(await values('logins')).toEqual([0]);
  });

  it('deletes a window and returns the count, the parameters in the body or the query', async () => {
    await series('logins', 6);
    await series('other', 2);
    const window = { start: '2026-03-01 13:01:00.250+0100', end: '2026-03-01 12:02:00.250Z' };
    expect(ok(await s.call('DELETE', '/monitoring/logins', window, admin))).toBe(2);
    expect(await values('logins')).toEqual([0, 30, 40, 50]);
    const query = new URLSearchParams({ start: '2026-03-01T12:04:00Z' }).toString();
    expect(ok(await s.call('DELETE', `/monitoring/logins?${query}`, {}, admin))).toBe(2);
    expect(await values('logins')).toEqual([0, 30]);
    expect(ok(await s.call('DELETE', '/monitoring/logins', {}, admin))).toBe(2);
    expect(ok(await get('/monitoring/'))).toEqual(['other']);
    expect(await values('other')).toEqual([0, 10]);
  });

  it('refuses a bad date with a clear error and deletes nothing', async () => {
    await series('logins', 2);
    const bad = (param: string, text: string) =>
      `The parameter '${param}' is not a date: '${text}' (use e.g. '2010-12-31 22:00+0200' or '2010-12-31T20:00:00Z')`;
    expectServiceError(
      await get('/monitoring/logins', { start: 'yesterday' }),
      905,
      bad('start', 'yesterday'),
    );
    expectServiceError(
      await get('/monitoring/logins', { end: '2026-02-30 10:00' }),
      905,
      bad('end', '2026-02-30 10:00'),
    );
    expectServiceError(
      await s.call('DELETE', '/monitoring/logins', { start: '2026-03-01 12:00+9900' }, admin),
      905,
      bad('start', '2026-03-01 12:00+9900'),
    );
    expectServiceError(
      await s.call('DELETE', '/monitoring/logins', { start: '2026-03-01', end: '01.03.2026' }, admin),
      905,
      bad('end', '01.03.2026'),
    );
    expect(await values('logins')).toEqual([0, 10]);
  });

  it('needs statistics_read and statistics_delete and writes one audit row per request', async () => {
    await series('logins', 1);
    expect((await s.call('GET', '/monitoring/')).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'statistics_read' });
    expect(ok(await get('/monitoring/logins/last'))).toBe(0);
    expectServiceError(
      await s.call('DELETE', '/monitoring/logins', {}, admin),
      303,
      'Admin actions are defined, but the action statistics_delete is not allowed!',
    );
    await setPolicy(op, 'adm', { scope: 'admin', action: 'statistics_delete' });
    for (const path of ['/monitoring/', '/monitoring/logins', '/monitoring/logins/last'])
      expectServiceError(
        await get(path),
        303,
        'Admin actions are defined, but the action statistics_read is not allowed!',
      );
    expect(ok(await s.call('DELETE', '/monitoring/logins', {}, admin))).toBe(1);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'statistics_read, statistics_delete' });
    expectServiceError(await get('/monitoring/logins', { start: 'x' }), 905);
    const rows = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .orderBy('id')
      .execute();
    const refused = (right: string) => `Admin actions are defined, but the action ${right} is not allowed!`;
    expect(rows.map((r) => [r.action, r.success, r.info])).toEqual([
      ['GET /monitoring/', 0, 'Authentication failure. Missing Authorization header.'],
      ['GET /monitoring/<stats_key>/last', 1, 'logins'],
      ['DELETE /monitoring/<stats_key>', 0, refused('statistics_delete')],
      ['GET /monitoring/', 0, refused('statistics_read')],
      ['GET /monitoring/<stats_key>', 0, refused('statistics_read')],
      ['GET /monitoring/<stats_key>/last', 0, refused('statistics_read')],
      ['DELETE /monitoring/<stats_key>', 1, 'logins'],
      ['GET /monitoring/<stats_key>', 0, expect.stringMatching(/^The parameter 'start' is not a date: 'x'/)],
    ]);
  });

  it('offers EventCounter and SimpleStats with their options under /periodictask/', async () => {
    expect(ok(await get('/periodictask/taskmodules/'))).toEqual(
      expect.arrayContaining(['EventCounter', 'SimpleStats']),
    );
    expect(ok(await get('/periodictask/options/EventCounter'))).toEqual({
      event_counter: { type: 'str', required: true, description: expect.any(String) },
      stats_key: { type: 'str', required: true, description: expect.any(String) },
      reset_event_counter: { type: 'bool', required: false, description: expect.any(String) },
    });
    const simple = ok(await get('/periodictask/options/SimpleStats'));
    // The envelope sorts the keys of objects, as privacyIDEA's JSON does.
    expect(Object.keys(simple)).toEqual([
      'assigned_tokens',
      'hardware_tokens',
      'software_tokens',
      'total_tokens',
      'unassigned_hardware_tokens',
      'user_with_token',
    ]);
    expect(simple.user_with_token).toEqual({
      type: 'bool',
      required: false,
      description: expect.any(String),
    });
  });

  it('records what a Counter event handler counted through an EventCounter task, and resets it', async () => {
    ok(
      await s.call(
        'POST',
        '/event',
        {
          name: 'count lists',
          event: 'token_list',
          handlermodule: 'Counter',
          action: 'increase_counter',
          'option.counter_name': 'token_lists',
        },
        admin,
      ),
    );
    for (let i = 0; i < 3; i++) ok(await get('/token/'));
    await setPeriodicTask(op, {
      name: 'lists',
      interval: '*/5 * * * *',
      nodes: s.rt.node,
      taskmodule: 'EventCounter',
      ordering: '0',
      options: JSON.stringify({
        event_counter: 'token_lists',
        stats_key: 'lists',
        reset_event_counter: 'True',
      }),
    });
    expect((await runPeriodicTaskNow(op, 'lists')).summary).toEqual({ recorded: 1, lists: 3 });
    expect(ok(await get('/monitoring/lists/last'))).toBe(3);
    ok(await get('/token/'));
    expect((await runPeriodicTaskNow(op, 'lists')).summary).toEqual({ recorded: 1, lists: 1 });
    expect(await values('lists')).toEqual([3, 1]);
  });
});
