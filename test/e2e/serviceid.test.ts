// Service IDs over HTTP (reference 6.5, spec "Service ID endpoints"): create/update (value 1), the
// listing name → {description, id}, delete, the refusal to delete one an applspec token uses, the
// rights serviceid_list/_add/_delete and one audit row per request.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

describe.each(testDialects())('service IDs on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { reset: ['policies', 'tokens', 'audit'] }, (t) => ({ s, op, admin } = t));
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('serviceid').execute();
  });

  const rows = () =>
    s.rt.store.db.selectFrom('serviceid').select(['name', 'description']).orderBy('name').execute();
  const auditRows = (action: string) =>
    s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info', 'administrator'])
      .where('action', '=', action)
      .orderBy('id')
      .execute();

  it('creates, updates, lists, gets and deletes service IDs', async () => {
    expect(ok(await s.call('GET', '/serviceid/', {}, admin))).toEqual({});
    expect(ok(await s.call('POST', '/serviceid/mail', { description: 'Mail servers' }, admin))).toBe(1);
    expect(ok(await s.call('POST', '/serviceid/ssh', {}, admin))).toBe(1);
    // Posting again changes the description; without one it is kept.
    expect(ok(await s.call('POST', '/serviceid/mail', { description: 'IMAP and SMTP' }, admin))).toBe(1);
    expect(ok(await s.call('POST', '/serviceid/mail', {}, admin))).toBe(1);
    const all = ok(await s.call('GET', '/serviceid/', {}, admin));
    expect(all).toEqual({
      mail: { description: 'IMAP and SMTP', id: expect.any(Number) },
      ssh: { description: '', id: expect.any(Number) },
    });
    expect(ok(await s.call('GET', '/serviceid', {}, admin))).toEqual(all);
    expect(ok(await s.call('GET', '/serviceid/ssh', {}, admin))).toEqual({ ssh: all.ssh });
    expect(ok(await s.call('GET', '/serviceid/nothere', {}, admin))).toEqual({});
    expect(ok(await s.call('DELETE', '/serviceid/ssh', {}, admin))).toBe(1);
    expect(await rows()).toEqual([{ name: 'mail', description: 'IMAP and SMTP' }]);
    // Each request has its audit row, naming the service ID.
    expect(await auditRows('POST /serviceid/<name>')).toHaveLength(4);
    expect(await auditRows('DELETE /serviceid/<name>')).toEqual([
      { action: 'DELETE /serviceid/<name>', success: 1, info: 'ssh', administrator: 'admin' },
    ]);
    expect(await auditRows('GET /serviceid/')).toHaveLength(3);
  });

  it('refuses an unknown name, bad input and one an applspec token uses, changing nothing', async () => {
    expectServiceError(
      await s.call('DELETE', '/serviceid/nothere', {}, admin),
      601,
      'The service ID nothere does not exist.',
    );
    expectServiceError(await s.call('POST', '/serviceid/%20', {}, admin), 905);
    expectServiceError(await s.call('POST', '/serviceid/x', { description: 'd'.repeat(2001) }, admin), 905);
    expectServiceError(await s.call('POST', `/serviceid/${'n'.repeat(256)}`, {}, admin), 905);
    expect(await rows()).toEqual([]);
    // The longest name and description fit every database, wide characters too.
    const longest = { name: 'n'.repeat(255), description: '\u{1F511}'.repeat(2000) };
    expect(
      ok(await s.call('POST', `/serviceid/${longest.name}`, { description: longest.description }, admin)),
    ).toBe(1);
    expect(await rows()).toEqual([longest]);
    ok(await s.call('DELETE', `/serviceid/${longest.name}`, {}, admin));

    ok(await s.call('POST', '/serviceid/mail', { description: 'Mail' }, admin));
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'applspec', otpkey: 'app-pass', service_id: 'MAIL', serial: 'ASP1' },
        admin,
      ),
    );
    // The token's service_id matches case-insensitively, as authentication compares it.
    expectServiceError(
      await s.call('DELETE', '/serviceid/mail', {}, admin),
      302,
      'The service ID mail is still used by token(s) ASP1.',
    );
    expect(await rows()).toEqual([{ name: 'mail', description: 'Mail' }]);
    const refused = await auditRows('DELETE /serviceid/<name>');
    expect(refused.at(-1)).toMatchObject({ success: 0, info: 'mail' });
    ok(await s.call('DELETE', '/token/ASP1', {}, admin));
    expect(ok(await s.call('DELETE', '/serviceid/mail', {}, admin))).toBe(1);
  });

  it('needs an administrator and the rights serviceid_list, serviceid_add and serviceid_delete', async () => {
    ok(await s.call('POST', '/serviceid/mail', {}, admin));
    expect((await s.call('GET', '/serviceid/')).status).toBe(401);
    expect((await s.call('POST', '/serviceid/x')).status).toBe(401);
    expect((await s.call('DELETE', '/serviceid/mail')).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('GET', '/serviceid/', {}, admin),
      303,
      'Admin actions are defined, but the action serviceid_list is not allowed!',
    );
    expectServiceError(await s.call('POST', '/serviceid/x', {}, admin), 303);
    expectServiceError(await s.call('DELETE', '/serviceid/mail', {}, admin), 303);
    expect(await rows()).toEqual([{ name: 'mail', description: '' }]);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'serviceid_list, serviceid_add, serviceid_delete' });
    expect(ok(await s.call('POST', '/serviceid/x', {}, admin))).toBe(1);
    expect(Object.keys(ok(await s.call('GET', '/serviceid/', {}, admin)))).toEqual(['mail', 'x']);
    expect(ok(await s.call('DELETE', '/serviceid/x', {}, admin))).toBe(1);
  });
});
