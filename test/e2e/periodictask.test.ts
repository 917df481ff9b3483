// Periodic task definitions over HTTP (reference 7.2, spec "Periodic task endpoints"): create,
// replace (options completely), list, get, enable/disable, delete, taskmodules, nodes, options of
// a module; last_update and last_runs as privacyIDEA shows them; bad input refused with nothing
// stored; the rights periodictask_read/_write and one audit row per request.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { runPeriodicTaskNow } from '../../src/core/periodictask/index.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, jsonCall, ok } from '../helpers/user-stores.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}\+0000$/;

describe.each(testDialects())('periodic tasks over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { reset: ['policies', 'audit'] }, (t) => ({ s, op, admin } = t));

  /** POST /periodictask/ with a JSON body (options as an object or as JSON text). */
  const define = (params: Record<string, unknown>) => jsonCall(s, 'POST', '/periodictask/', params, admin);
  /** The ChallengeCleanup definition with `extra` changed (undefined leaves a field out). */
  const cleanup = (extra: Record<string, unknown> = {}) =>
    Object.fromEntries(
      Object.entries({
        name: 'cleanup',
        interval: '*/5 * * * *',
        nodes: s.rt.node,
        taskmodule: 'ChallengeCleanup',
        ordering: '2',
        ...extra,
      }).filter(([, v]) => v !== undefined),
    );
  const tables = async () => ({
    tasks: await s.rt.store.db.selectFrom('periodictask').select(['name', 'active']).orderBy('id').execute(),
    options: await s.rt.store.db
      .selectFrom('periodictask_option')
      .select(['key', 'value'])
      .orderBy('key')
      .execute(),
  });
  afterEach(async () => {
    for (const t of ['periodictask_option', 'periodictask_lastrun', 'periodictask'] as const)
      await s.rt.store.db.deleteFrom(t).execute();
  });

  it('lists the task modules, their options and the nodes', async () => {
    expect(ok(await s.call('GET', '/periodictask/taskmodules/', {}, admin))).toEqual([
      'EventCounter',
      'SimpleStats',
      'ChallengeCleanup',
      'AuditRotation',
      'InactiveTokenSweep',
      'CRLRefresh',
    ]);
    expect(ok(await s.call('GET', '/periodictask/options/InactiveTokenSweep', {}, admin))).toEqual({
      days: { type: 'int', required: true, description: expect.any(String) },
      action: { type: 'str', required: true, description: expect.any(String) },
    });
    expectServiceError(
      await s.call('GET', '/periodictask/options/Nope', {}, admin),
      905,
      /Unknown task module 'Nope'/,
    );
    expect(ok(await s.call('GET', '/periodictask/nodes/', {}, admin))).toContain(s.rt.node);
  });

  it('creates, replaces, enables, disables, shows and deletes a task', async () => {
    const id = ok(await define(cleanup()));
    expect(id).toEqual(expect.any(Number));
    const rotate = ok(
      await define({
        name: 'rotate',
        interval: '0 3 * * *',
        nodes: `${s.rt.node}, other`,
        taskmodule: 'AuditRotation',
        ordering: 1,
        retry_if_failed: false,
        options: { max_age: 86400, max_rows: '1000' },
      }),
    );
    const all = ok(await s.call('GET', '/periodictask/', {}, admin));
    expect(all.map((t: { name: string }) => t.name)).toEqual(['rotate', 'cleanup']); // by ordering
    expect(all[0]).toEqual({
      id: rotate,
      name: 'rotate',
      active: true,
      retry_if_failed: false,
      interval: '0 3 * * *',
      nodes: [s.rt.node, 'other'],
      taskmodule: 'AuditRotation',
      ordering: 1,
      options: { max_age: '86400', max_rows: '1000' },
      last_update: expect.stringMatching(TIMESTAMP),
      last_runs: {},
    });
    // Replacing by id replaces the options completely.
    expect(
      ok(
        await define({
          id: rotate,
          name: 'rotate',
          interval: '0 4 * * *',
          nodes: 'other',
          taskmodule: 'AuditRotation',
          ordering: 0,
          options: '{"max_rows": 5}',
        }),
      ),
    ).toBe(rotate);
    const shown = ok(await s.call('GET', `/periodictask/${rotate}`, {}, admin));
    expect(shown).toMatchObject({
      interval: '0 4 * * *',
      nodes: ['other'],
      options: { max_rows: '5' },
      retry_if_failed: true,
    });
    expect(ok(await s.call('POST', `/periodictask/disable/${id}`, {}, admin))).toBe(id);
    expect(ok(await s.call('GET', `/periodictask/${id}`, {}, admin)).active).toBe(false);
    expect(ok(await s.call('POST', `/periodictask/enable/${id}`, {}, admin))).toBe(id);
    expect(ok(await s.call('GET', `/periodictask/${id}`, {}, admin)).active).toBe(true);
    // A run shows up in last_runs under the node's name.
    await runPeriodicTaskNow(op, 'cleanup');
    const ran = ok(await s.call('GET', `/periodictask/${id}`, {}, admin));
    expect(Object.keys(ran.last_runs)).toEqual([s.rt.node]);
    expect(ran.last_runs[s.rt.node]).toMatch(TIMESTAMP);
    expect(ok(await s.call('DELETE', `/periodictask/${id}`, {}, admin))).toBe(id);
    expect(ok(await s.call('DELETE', `/periodictask/${rotate}`, {}, admin))).toBe(rotate);
    expect(await tables()).toEqual({ tasks: [], options: [] });
    expect(await s.rt.store.db.selectFrom('periodictask_lastrun').selectAll().execute()).toEqual([]);
  });

  it('refuses bad input with a clear error and stores nothing', async () => {
    const refused: [Record<string, unknown>, RegExp][] = [
      [{ name: undefined }, /Missing parameter: 'name'/],
      [{ interval: undefined }, /Missing parameter: 'interval'/],
      [{ interval: 'every minute' }, /Invalid interval 'every minute'/],
      [{ interval: '61 * * * *' }, /Invalid interval/],
      [{ nodes: ' , ' }, /at least one node/],
      [{ taskmodule: 'EventCounterX' }, /Unknown task module 'EventCounterX'/],
      [{ ordering: '-1' }, /ordering/],
      [{ ordering: 'first' }, /ordering/],
      [{ ordering: undefined }, /Missing parameter: 'ordering'/],
      [{ active: 'maybe' }, /'active' must be true or false/],
      [{ options: '{not json' }, /options must be a JSON object/],
      [{ options: { x: '1' } }, /Unknown option 'x' of task module ChallengeCleanup/],
      [{ taskmodule: 'AuditRotation', options: {} }, /needs max_age or max_rows/],
      [{ taskmodule: 'AuditRotation', options: { max_age: 'a day' } }, /max_age.*whole number/],
      [{ taskmodule: 'InactiveTokenSweep', options: { days: '90' } }, /needs the option 'action'/],
      [{ taskmodule: 'InactiveTokenSweep', options: { days: '90', action: 'lock' } }, /disable or delete/],
      [{ name: 'a b' }, /Invalid periodic task name/],
      [{ id: '999999' }, /does not exist/],
    ];
    for (const [change, message] of refused) {
      const r = await define(cleanup(change));
      expect(r.status, r.text).toBe(200);
      expect(r.json.result.status, JSON.stringify(change)).toBe(false);
      expect(r.json.result.error.message).toMatch(message);
    }
    expect(await tables()).toEqual({ tasks: [], options: [] });
    ok(await define(cleanup()));
    expectServiceError(await define(cleanup({ ordering: 3 })), 905, /named cleanup exists already/);
    expectServiceError(await s.call('GET', '/periodictask/424242', {}, admin), 601, /does not exist/);
    expectServiceError(await s.call('POST', '/periodictask/enable/424242', {}, admin), 601);
    expectServiceError(await s.call('DELETE', '/periodictask/424242', {}, admin), 601);
    expect((await tables()).tasks).toEqual([{ name: 'cleanup', active: 1 }]);
  });

  it('needs periodictask_read and periodictask_write and writes one audit row per request', async () => {
    expect((await s.call('GET', '/periodictask/')).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'periodictask_read' });
    expect(ok(await s.call('GET', '/periodictask/', {}, admin))).toEqual([]);
    expectServiceError(
      await define(cleanup()),
      303,
      'Admin actions are defined, but the action periodictask_write is not allowed!',
    );
    await setPolicy(op, 'adm', { scope: 'admin', action: 'periodictask_write' });
    expectServiceError(await s.call('GET', '/periodictask/taskmodules/', {}, admin), 303);
    const id = ok(await define(cleanup()));
    expect(ok(await s.call('DELETE', `/periodictask/${id}`, {}, admin))).toBe(id);
    const rows = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.success, r.info])).toEqual([
      ['GET /periodictask/', 0, 'Authentication failure. Missing Authorization header.'],
      ['GET /periodictask/', 1, ''],
      [
        'POST /periodictask/',
        0,
        'Admin actions are defined, but the action periodictask_write is not allowed!',
      ],
      [
        'GET /periodictask/taskmodules/',
        0,
        'Admin actions are defined, but the action periodictask_read is not allowed!',
      ],
      ['POST /periodictask/', 1, 'cleanup'],
      ['DELETE /periodictask/<ptaskid>', 1, String(id)],
    ]);
  });
});
