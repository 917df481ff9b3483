// RADIUS server definitions over HTTP (reference 8.4, spec "RADIUS server endpoints"): create,
// update, list with the secret censored, __CENSORED__ keeping it (not for another server), delete,
// GET /system/names/radius, the test request against FreeRADIUS (accept, reject, wrong secret,
// the server stopped), bad input changing nothing, the rights and one audit row per request.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { freeUdpPort, RADIUS_ALICE_PASSWORD, RADIUS_SECRET, useFreeRadius } from '../helpers/freeradius.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const fr = useFreeRadius();

describe.each(testDialects())('RADIUS servers on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { reset: ['policies', 'audit'] }, (t) => ({ s, op, admin } = t));
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('radiusserver').execute();
  });

  const rows = () =>
    s.rt.store.db
      .selectFrom('radiusserver')
      .select(['identifier', 'server', 'port', 'secret', 'timeout', 'retries', 'description'])
      .orderBy('identifier')
      .execute();
  const auditRows = (action: string) =>
    s.rt.store.db
      .selectFrom('audit')
      .select(['success', 'info'])
      .where('action', '=', action)
      .orderBy('id')
      .execute();
  const define = (id: string, params: Record<string, string>) =>
    s.call('POST', `/radiusserver/${id}`, params, admin);

  it('creates, updates, lists (secret censored, sealed at rest) and deletes definitions', async () => {
    expect(ok(await s.call('GET', '/radiusserver/', {}, admin))).toEqual({});
    expect(
      ok(await define('fr', { server: '127.0.0.1', secret: RADIUS_SECRET, description: 'old OTP' })),
    ).toBe(true);
    expect(
      ok(
        await define('other', {
          server: 'radius.example.org',
          port: '1645',
          secret: 's2',
          timeout: '2',
          retries: '0',
        }),
      ),
    ).toBe(true);
    const all = ok(await s.call('GET', '/radiusserver/', {}, admin));
    expect(all).toEqual({
      fr: {
        server: '127.0.0.1',
        port: 1812,
        secret: '__CENSORED__',
        description: 'old OTP',
        timeout: 5,
        retries: 3,
      },
      other: {
        server: 'radius.example.org',
        port: 1645,
        secret: '__CENSORED__',
        description: '',
        timeout: 2,
        retries: 0,
      },
    });
    expect(ok(await s.call('GET', '/radiusserver/fr', {}, admin))).toEqual({ fr: all.fr });
    // The secret is sealed in the database.
    const stored = await rows();
    expect(stored.map((r) => r.secret).join()).not.toContain(RADIUS_SECRET);
    // An update changes what it gives; __CENSORED__ (or no secret) keeps the stored one.
    expectServiceError(
      await define('fr', { port: String(fr.port), secret: '__CENSORED__' }),
      905,
      /must be given again/,
    );
    ok(await define('fr', { port: String(fr.port), secret: RADIUS_SECRET }));
    ok(await define('fr', { secret: '__CENSORED__', description: 'FreeRADIUS' }));
    // …but not for another server or port: the secret must be given again.
    expectServiceError(await define('fr', { port: '1' }), 905, /secret must be given again: port differs/);
    ok(await define('fr', { description: 'kept' }));
    expect(ok(await s.call('GET', '/radiusserver/fr', {}, admin)).fr).toMatchObject({
      port: fr.port,
      description: 'kept',
    });
    expect(ok(await s.call('GET', '/system/names/radius', {}, admin))).toEqual(['fr', 'other']);
    expect(ok(await s.call('DELETE', '/radiusserver/other', {}, admin))).toBe(true);
    expect(ok(await s.call('GET', '/system/names/radius', {}, admin))).toEqual(['fr']);
    // The kept secret still reaches FreeRADIUS.
    const test = await s.call(
      'POST',
      '/radiusserver/test_request',
      { identifier: 'fr', username: 'alice', password: RADIUS_ALICE_PASSWORD },
      admin,
    );
    expect(ok(test)).toBe(true);
    expect(test.json.detail.description).toBe('Access-Accept (Reply-Message: Hello alice)');
    // A test that sends the stored secret elsewhere is refused before anything is sent.
    expectServiceError(
      await s.call(
        'POST',
        '/radiusserver/test_request',
        { identifier: 'fr', server: 'localhost', username: 'alice', password: 'x' },
        admin,
      ),
      905,
      /secret must be given again: server differs/,
    );
    // Seven definitions posted, two of them refused.
    expect((await auditRows('POST /radiusserver/<identifier>')).map((r) => r.success)).toEqual([
      1, 1, 0, 1, 1, 0, 1,
    ]);
    expect(await auditRows('DELETE /radiusserver/<identifier>')).toEqual([{ success: 1, info: 'other' }]);
    expect(await auditRows('POST /radiusserver/test_request')).toEqual([
      { success: 1, info: 'fr' },
      { success: 0, info: 'fr' },
    ]);
  });

  it('refuses bad input and unknown definitions with a clear error, writing nothing', async () => {
    expectServiceError(await define('x', { secret: 's' }), 905, "Missing parameter: 'server'");
    expectServiceError(await define('x', { server: 'h' }), 905, "Missing parameter: 'secret'");
    expectServiceError(await define('x', { server: 'h', secret: '__CENSORED__' }), 905);
    expectServiceError(await define('x', { server: 'h', secret: 's', port: '70000' }), 905, /port/);
    expectServiceError(await define('x', { server: 'h', secret: 's', port: 'abc' }), 905, /port/);
    expectServiceError(await define('x', { server: 'h', secret: 's', timeout: '0' }), 905, /timeout/);
    expectServiceError(await define('x', { server: 'h', secret: 's', retries: '-1' }), 905, /retries/);
    expectServiceError(await define('x', { server: 'a b', secret: 's' }), 905, /Invalid server/);
    expectServiceError(await define('x y', { server: 'h', secret: 's' }), 905, /Invalid RADIUS server name/);
    expectServiceError(
      await define('x', { server: 'h', secret: 's'.repeat(256) }),
      2234,
      'The RADIUS secret is too long',
    );
    expectServiceError(await define('x', { server: 'h', secret: 's', description: 'd'.repeat(2001) }), 905);
    expect(await rows()).toEqual([]);
    expectServiceError(
      await s.call('DELETE', '/radiusserver/nothere', {}, admin),
      601,
      'The RADIUS server nothere does not exist.',
    );
    expect((await auditRows('DELETE /radiusserver/<identifier>')).at(-1)).toEqual({
      success: 0,
      info: 'nothere',
    });
    expectServiceError(
      await s.call('POST', '/radiusserver/test_request', { server: 'h', secret: 's' }, admin),
      905,
      /username/,
    );
  });

  it('test_request answers false with the reason for a wrong password, a wrong secret and a stopped server', async () => {
    const test = (params: Record<string, string>) =>
      s.call(
        'POST',
        '/radiusserver/test_request',
        {
          server: '127.0.0.1',
          port: String(fr.port),
          username: 'alice',
          timeout: '1',
          retries: '0',
          ...params,
        },
        admin,
      );
    let r = await test({ secret: RADIUS_SECRET, password: 'wrong' });
    expect(ok(r)).toBe(false);
    expect(r.json.detail.description).toMatch(/^Access-Reject/);
    r = await test({ secret: 'not-the-secret', password: RADIUS_ALICE_PASSWORD });
    expect(r.status).toBe(200);
    expect(ok(r)).toBe(false);
    expect(r.json.detail.description).toMatch(/^no answer from 127\.0\.0\.1:\d+ \(a server stays silent/);
    const closed = await freeUdpPort();
    r = await test({ secret: RADIUS_SECRET, password: RADIUS_ALICE_PASSWORD, port: String(closed) });
    expect(ok(r)).toBe(false);
    expect(r.json.detail.description).toBe(`127.0.0.1:${closed} refused the request (nothing listens there)`);
    expect(ok(await test({ secret: RADIUS_SECRET, password: RADIUS_ALICE_PASSWORD }))).toBe(true);
    expect(await rows()).toEqual([]);
  });

  it('needs an administrator and the rights radiusserver_read / radiusserver_write; names/radius needs enrollRADIUS', async () => {
    ok(await define('fr', { server: '127.0.0.1', secret: RADIUS_SECRET }));
    expect((await s.call('GET', '/radiusserver/')).status).toBe(401);
    expect((await s.call('POST', '/radiusserver/x', { server: 'h', secret: 's' })).status).toBe(401);
    expect((await s.call('GET', '/system/names/radius')).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('GET', '/radiusserver/', {}, admin),
      303,
      'Admin actions are defined, but the action radiusserver_read is not allowed!',
    );
    expectServiceError(await define('x', { server: 'h', secret: 's' }), 303);
    expectServiceError(
      await s.call('POST', '/radiusserver/test_request', { identifier: 'fr', username: 'alice' }, admin),
      303,
    );
    expectServiceError(await s.call('DELETE', '/radiusserver/fr', {}, admin), 303);
    expectServiceError(await s.call('GET', '/system/names/radius', {}, admin), 303, /enrollRADIUS/);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'radiusserver_read, enrollRADIUS' });
    expect(Object.keys(ok(await s.call('GET', '/radiusserver/', {}, admin)))).toEqual(['fr']);
    expect(ok(await s.call('GET', '/system/names/radius', {}, admin))).toEqual(['fr']);
    expectServiceError(await define('x', { server: 'h', secret: 's' }), 303);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'radiusserver_write' });
    expect(ok(await define('x', { server: 'h', secret: 's' }))).toBe(true);
    expect((await rows()).map((r) => r.identifier)).toEqual(['fr', 'x']);
  });
});
