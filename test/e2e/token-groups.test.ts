// Token groups over HTTP (reference 3.4 `tokengroup`, 3.5 /token/group, 6.5 /tokengroup/): the
// group CRUD, putting tokens into groups, the token record's `tokengroup`, the rights and errors.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

describe.each(testDialects())('token groups on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { reset: ['policies', 'tokengroups', 'tokens'] }, (t) => ({ s, op, admin } = t));

  const spass = async (serial: string) =>
    ok(await s.call('POST', '/token/init', { type: 'spass', serial, pin: 'x' }, admin));
  const groupsOf = async (serial: string) => {
    const v = ok(await s.call('GET', '/token/', { serial }, admin));
    return v.tokens[0].tokengroup as string[];
  };

  it('creates, updates, lists and deletes token groups', async () => {
    expect(ok(await s.call('GET', '/tokengroup/', {}, admin))).toEqual({});
    const id1 = ok(await s.call('POST', '/tokengroup/sales', { description: 'Sales team' }, admin));
    const id2 = ok(await s.call('POST', '/tokengroup/Dev', {}, admin));
    expect(typeof id1).toBe('number');
    expect(id2).not.toBe(id1);
    // Posting again updates the description and keeps the id.
    expect(ok(await s.call('POST', '/tokengroup/sales', { description: 'Sales' }, admin))).toBe(id1);
    expect(ok(await s.call('GET', '/tokengroup/', {}, admin))).toEqual({
      Dev: { description: '', id: id2 },
      sales: { description: 'Sales', id: id1 },
    });
    expect(ok(await s.call('GET', '/tokengroup', {}, admin))).toHaveProperty('Dev');
    expect(ok(await s.call('GET', '/tokengroup/sales', {}, admin))).toEqual({
      sales: { description: 'Sales', id: id1 },
    });
    expect(ok(await s.call('GET', '/tokengroup/nothere', {}, admin))).toEqual({});
    expect(ok(await s.call('DELETE', '/tokengroup/Dev', {}, admin))).toBe(1);
    expect(Object.keys(ok(await s.call('GET', '/tokengroup/', {}, admin)))).toEqual(['sales']);
    expectServiceError(
      await s.call('DELETE', '/tokengroup/Dev', {}, admin),
      601,
      'The tokengroup Dev does not exist.',
    );
  });

  it('adds, replaces and removes the groups of a token; the token record lists them', async () => {
    await spass('SP1');
    await spass('SP2');
    for (const g of ['g1', 'g2', 'g3']) ok(await s.call('POST', `/tokengroup/${g}`, {}, admin));
    expect(await groupsOf('SP1')).toEqual([]);
    expect(ok(await s.call('POST', '/token/group/SP1/g2', {}, admin))).toBe(1);
    expect(ok(await s.call('POST', '/token/group/SP1/g1', {}, admin))).toBe(1);
    // Adding twice is harmless.
    expect(ok(await s.call('POST', '/token/group/SP1/g1', {}, admin))).toBe(1);
    expect(await groupsOf('SP1')).toEqual(['g1', 'g2']);
    expect(await groupsOf('SP2')).toEqual([]);

    expect(ok(await s.call('POST', '/token/group/SP1', { groups: 'g3, g2' }, admin))).toBe(1);
    expect(await groupsOf('SP1')).toEqual(['g2', 'g3']);
    // A JSON list.
    const res = await fetch(`${s.url}/token/group/SP2`, {
      method: 'POST',
      headers: { Authorization: admin, 'Content-Type': 'application/json' },
      body: JSON.stringify({ groups: ['g1', 'g3'] }),
    });
    expect(((await res.json()) as { result: { value: unknown } }).result.value).toBe(1);
    expect(await groupsOf('SP2')).toEqual(['g1', 'g3']);

    expect(ok(await s.call('DELETE', '/token/group/SP1/g3', {}, admin))).toBe(1);
    expect(await groupsOf('SP1')).toEqual(['g2']);
    // Empty groups: the token leaves all of them.
    expect(ok(await s.call('POST', '/token/group/SP1', { groups: '' }, admin))).toBe(1);
    expect(await groupsOf('SP1')).toEqual([]);
  });

  it('refuses unknown groups and tokens, changing nothing', async () => {
    await spass('SP1');
    ok(await s.call('POST', '/tokengroup/g1', {}, admin));
    ok(await s.call('POST', '/token/group/SP1/g1', {}, admin));
    expectServiceError(
      await s.call('POST', '/token/group/SP1/nope', {}, admin),
      601,
      'The tokengroup nope does not exist.',
    );
    expectServiceError(
      await s.call('POST', '/token/group/SP1', { groups: 'g1,nope' }, admin),
      601,
      'The tokengroup nope does not exist.',
    );
    expectServiceError(
      await s.call('DELETE', '/token/group/SP1/nope', {}, admin),
      601,
      'The tokengroup nope does not exist.',
    );
    expect(await groupsOf('SP1')).toEqual(['g1']);
    expectServiceError(
      await s.call('POST', '/token/group/NOSUCH/g1', {}, admin),
      601,
      'No token found for serials: NOSUCH',
    );
    expectServiceError(await s.call('DELETE', '/token/group/NOSUCH/g1', {}, admin), 601);
    expectServiceError(await s.call('POST', '/token/group/NOSUCH', { groups: 'g1' }, admin), 601);
  });

  it('refuses to delete a group that still has tokens; deleting the token frees it', async () => {
    await spass('SP1');
    ok(await s.call('POST', '/tokengroup/g1', {}, admin));
    ok(await s.call('POST', '/token/group/SP1/g1', {}, admin));
    expectServiceError(
      await s.call('DELETE', '/tokengroup/g1', {}, admin),
      302,
      'The tokengroup g1 still contains 1 token(s).',
    );
    expect(Object.keys(ok(await s.call('GET', '/tokengroup/', {}, admin)))).toEqual(['g1']);
    ok(await s.call('DELETE', '/token/SP1', {}, admin));
    expect(await s.rt.store.db.selectFrom('tokengroup_token').selectAll().execute()).toEqual([]);
    expect(ok(await s.call('DELETE', '/tokengroup/g1', {}, admin))).toBe(1);
  });

  it('refuses a locked token', async () => {
    await spass('SP1');
    ok(await s.call('POST', '/tokengroup/g1', {}, admin));
    await s.rt.store.db.updateTable('token').set({ locked: 1 }).where('serial', '=', 'SP1').execute();
    expectServiceError(await s.call('POST', '/token/group/SP1/g1', {}, admin), 1007);
  });

  it('needs an administrator and the rights tokengroup_list/_add/_delete and tokengroups', async () => {
    await spass('SP1');
    ok(await s.call('POST', '/tokengroup/g1', {}, admin));
    expect((await s.call('GET', '/tokengroup/')).status).toBe(401);
    expect((await s.call('POST', '/tokengroup/g2')).status).toBe(401);
    expect((await s.call('DELETE', '/tokengroup/g1')).status).toBe(401);
    expect((await s.call('POST', '/token/group/SP1/g1')).status).toBe(401);
    expect((await s.call('DELETE', '/token/group/SP1/g1')).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(await s.call('GET', '/tokengroup/', {}, admin), 303);
    expectServiceError(await s.call('POST', '/tokengroup/g2', {}, admin), 303);
    expectServiceError(await s.call('DELETE', '/tokengroup/g1', {}, admin), 303);
    expectServiceError(
      await s.call('POST', '/token/group/SP1/g1', {}, admin),
      303,
      'Admin actions are defined, but the action tokengroups is not allowed!',
    );
    expectServiceError(await s.call('POST', '/token/group/SP1', { groups: 'g1' }, admin), 303);
    expectServiceError(await s.call('DELETE', '/token/group/SP1/g1', {}, admin), 303);
    await setPolicy(op, 'adm', {
      scope: 'admin',
      action: 'tokenlist, tokengroups, tokengroup_list, tokengroup_add, tokengroup_delete',
    });
    expect(ok(await s.call('POST', '/tokengroup/g2', {}, admin))).toEqual(expect.any(Number));
    expect(Object.keys(ok(await s.call('GET', '/tokengroup/', {}, admin)))).toEqual(['g1', 'g2']);
    expect(ok(await s.call('POST', '/token/group/SP1/g1', {}, admin))).toBe(1);
    expect(ok(await s.call('DELETE', '/token/group/SP1/g1', {}, admin))).toBe(1);
    expect(ok(await s.call('DELETE', '/tokengroup/g2', {}, admin))).toBe(1);
  });
});
