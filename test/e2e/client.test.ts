// GET /client/ over HTTP (issue 5; reference 4.1, 8.6; spec "Client endpoint"): every check
// records its client, listed by client type (the User-Agent's name) with ip, node and lastseen.
import { describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

describe.each(testDialects())('/client on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let now = new Date('2026-03-01T12:00:00Z');

  useTokenServer(dialect, { clock: () => now }, (t) => ({ s, admin } = t));

  /** A check with the given User-Agent (the helper's call always sends Node's own). */
  const checkAs = async (userAgent: string, path = '/validate/check') => {
    const res = await fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: { 'User-Agent': userAgent, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user: 'nobody', pass: 'x' }).toString(),
    });
    expect(res.status).toBe(200);
  };

  it('lists the clients of every check by client type, one entry per address and node', async () => {
    expect(ok(await s.call('GET', '/client/', {}, admin))).toEqual({});
    await checkAs('PAM/2.1 (linux)');
    await checkAs('privacyidea-cp/3.6.0 Windows/10');
    now = new Date('2026-03-01T12:05:00Z');
    await checkAs('PAM/2.2');
    await checkAs('SAML', '/validate/samlcheck');
    const value = ok(await s.call('GET', '/client', {}, admin));
    expect(Object.keys(value).sort()).toEqual(['PAM', 'SAML', 'privacyidea-cp']);
    expect(value.PAM).toHaveLength(1);
    expect(value.PAM[0]).toEqual({
      hostname: null,
      ip: expect.stringMatching(/127\.0\.0\.1$/),
      clienttype: 'PAM',
      user_agent: 'PAM/2.2',
      node: 'test-node',
      lastseen: 'Sun, 01 Mar 2026 12:05:00 GMT',
    });
    expect(value['privacyidea-cp'][0]).toMatchObject({
      user_agent: 'privacyidea-cp/3.6.0 Windows/10',
      lastseen: 'Sun, 01 Mar 2026 12:00:00 GMT',
    });
    expect(value.SAML[0]).toMatchObject({ clienttype: 'SAML', user_agent: 'SAML' });
    const rows = await s.rt.store.db.selectFrom('clients').selectAll().execute();
    expect(rows).toHaveLength(3);
  });

  it('writes the lastseen of a client at most once a minute (a busy client costs no write per check)', async () => {
    const lastseen = async () =>
      ok(await s.call('GET', '/client/', {}, admin)).Throttled.map((c: { lastseen: string }) => c.lastseen);
    now = new Date('2026-03-01T12:10:00Z');
    await checkAs('Throttled/1');
    now = new Date('2026-03-01T12:10:59Z');
    await checkAs('Throttled/1');
    expect(await lastseen()).toEqual(['Sun, 01 Mar 2026 12:10:00 GMT']);
    now = new Date('2026-03-01T12:11:00Z');
    await checkAs('Throttled/1');
    expect(await lastseen()).toEqual(['Sun, 01 Mar 2026 12:11:00 GMT']);
    await s.rt.store.db.deleteFrom('clients').where('clienttype', '=', 'Throttled').execute();
  });

  it('lists clients whose User-Agent is named like a member of Object.prototype (was HTTP 500)', async () => {
    const names = ['constructor/1.0', '__proto__', 'toString', 'hasOwnProperty x'];
    for (const name of names) await checkAs(name);
    const value = ok(await s.call('GET', '/client/', {}, admin));
    for (const type of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(Object.hasOwn(value, type), type).toBe(true);
      expect(value[type]).toEqual([expect.objectContaining({ clienttype: type })]);
    }
    const types = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
    await s.rt.store.db.deleteFrom('clients').where('clienttype', 'in', types).execute();
  });

  it('needs the admin right clienttype and an administrator', async () => {
    expect((await s.call('GET', '/client/')).status).toBe(401);
    await setPolicy(withCaller(s.rt, localOperator()), 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('GET', '/client/', {}, admin),
      303,
      'Admin actions are defined, but the action clienttype is not allowed!',
    );
    await setPolicy(withCaller(s.rt, localOperator()), 'adm', { scope: 'admin', action: 'clienttype' });
    expect(Object.keys(ok(await s.call('GET', '/client/', {}, admin)))).toContain('PAM');
  });
});
