// RADIUS clients over HTTP (issue 22, /radiusclient/): create, update, list with the secret
// censored and sealed at rest, __CENSORED__ keeping it (not for another address), the lookup of a
// datagram's client by longest prefix, delete, bad input changing nothing, the rights
// radiusclient_read / radiusclient_write and one audit row per request.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { radiusClientFor } from '../../src/core/radiusclient/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const SECRET = 'nas-shared-secret-4711';

describe.each(testDialects())('RADIUS clients on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { reset: ['policies', 'audit'] }, (t) => ({ s, op, admin } = t));
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('radiusclient').execute();
  });

  const rows = () => s.rt.store.db.selectFrom('radiusclient').selectAll().orderBy('name').execute();
  const define = (name: string, params: Record<string, string>) =>
    s.call('POST', `/radiusclient/${name}`, params, admin);

  it('creates, updates, lists (secret censored, sealed at rest), finds by source and deletes clients', async () => {
    expect(ok(await s.call('GET', '/radiusclient/', {}, admin))).toEqual({});
    expect(ok(await define('vpn', { address: '192.0.2.7', secret: SECRET, description: 'VPN' }))).toBe(true);
    expect(
      ok(
        await define('lan', {
          address: '192.0.2.99/24',
          secret: 's2',
          require_message_authenticator: 'false',
        }),
      ),
    ).toBe(true);
    expect(ok(await define('v6', { address: '2001:db8::/32', secret: 's3' }))).toBe(true);
    const all = ok(await s.call('GET', '/radiusclient/', {}, admin));
    expect(all).toEqual({
      lan: {
        address: '192.0.2.0/24',
        secret: '__CENSORED__',
        require_message_authenticator: false,
        description: '',
      },
      v6: {
        address: '2001:db8::/32',
        secret: '__CENSORED__',
        require_message_authenticator: true,
        description: '',
      },
      vpn: {
        address: '192.0.2.7',
        secret: '__CENSORED__',
        require_message_authenticator: true,
        description: 'VPN',
      },
    });
    expect(ok(await s.call('GET', '/radiusclient/vpn', {}, admin))).toEqual({ vpn: all.vpn });
    expect((await rows()).map((r) => r.secret).join()).not.toContain(SECRET);

    // The longest prefix wins; IPv4-mapped sources count as IPv4; unknown sources have no client.
    expect(await radiusClientFor(s.rt, '192.0.2.7')).toEqual({
      name: 'vpn',
      address: '192.0.2.7',
      secret: Buffer.from(SECRET),
      requireMessageAuthenticator: true,
    });
    expect((await radiusClientFor(s.rt, '::ffff:192.0.2.8'))?.name).toBe('lan');
    expect((await radiusClientFor(s.rt, '2001:db8:5::1'))?.name).toBe('v6');
    expect(await radiusClientFor(s.rt, '198.51.100.1')).toBeUndefined();

    // __CENSORED__ or no secret keeps it; a new address needs the secret again.
    expect(
      ok(
        await define('vpn', {
          secret: '__CENSORED__',
          description: 'VPN 2',
          require_message_authenticator: '0',
        }),
      ),
    ).toBe(true);
    expect((await radiusClientFor(s.rt, '192.0.2.7'))?.secret).toEqual(Buffer.from(SECRET));
    expect(ok(await s.call('GET', '/radiusclient/vpn', {}, admin)).vpn).toEqual({
      address: '192.0.2.7',
      secret: '__CENSORED__',
      require_message_authenticator: false,
      description: 'VPN 2',
    });
    expectServiceError(await define('vpn', { address: '198.51.100.1' }), 905, /give the secret again/);
    expect(ok(await define('vpn', { address: '198.51.100.1', secret: 'new' }))).toBe(true);
    expect((await radiusClientFor(s.rt, '198.51.100.1'))?.secret).toEqual(Buffer.from('new'));

    expect(ok(await s.call('DELETE', '/radiusclient/lan', {}, admin))).toBe(true);
    expectServiceError(
      await s.call('DELETE', '/radiusclient/lan', {}, admin),
      601,
      'The RADIUS client lan does not exist.',
    );
    expect((await rows()).map((r) => r.name)).toEqual(['v6', 'vpn']);
    const audit = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .where('action', 'like', '%/radiusclient/%')
      .orderBy('id')
      .execute();
    expect(audit.filter((a) => a.action === 'DELETE /radiusclient/<name>')).toEqual([
      { action: 'DELETE /radiusclient/<name>', success: 1, info: 'lan' },
      { action: 'DELETE /radiusclient/<name>', success: 0, info: 'lan' },
    ]);
    expect(audit.map((a) => a.info).join()).not.toContain(SECRET);
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    expectServiceError(await define('x', { secret: 's' }), 905, "Missing parameter: 'address'");
    expectServiceError(await define('x', { address: '10.0.0.1' }), 905, "Missing parameter: 'secret'");
    expectServiceError(
      await define('x', { address: '10.0.0.1', secret: '__CENSORED__' }),
      905,
      /no secret is stored/,
    );
    expectServiceError(await define('x', { address: 'nas.example', secret: 's' }), 905, /Invalid address/);
    expectServiceError(await define('x', { address: '10.0.0.0/40', secret: 's' }), 905, /prefix length/);
    expectServiceError(
      await define('x', { address: '10.0.0.1', secret: 's', require_message_authenticator: 'maybe' }),
      905,
      /true or false/,
    );
    expectServiceError(await define('x', { address: '10.0.0.1', secret: 's'.repeat(256) }), 2234);
    expectServiceError(
      await define('bad name', { address: '10.0.0.1', secret: 's' }),
      905,
      /Invalid RADIUS client name/,
    );
    expect(await rows()).toEqual([]);
  });

  it('needs an administrator and the rights radiusclient_read / radiusclient_write', async () => {
    ok(await define('vpn', { address: '10.0.0.1', secret: SECRET }));
    expect((await s.call('GET', '/radiusclient/')).status).toBe(401);
    expect((await s.call('POST', '/radiusclient/x', { address: '10.0.0.2', secret: 's' })).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('GET', '/radiusclient/', {}, admin),
      303,
      'Admin actions are defined, but the action radiusclient_read is not allowed!',
    );
    expectServiceError(await define('x', { address: '10.0.0.2', secret: 's' }), 303);
    expectServiceError(await s.call('DELETE', '/radiusclient/vpn', {}, admin), 303);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'radiusclient_read' });
    expect(Object.keys(ok(await s.call('GET', '/radiusclient/', {}, admin)))).toEqual(['vpn']);
    expectServiceError(await define('x', { address: '10.0.0.2', secret: 's' }), 303);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'radiusclient_write' });
    expect(ok(await define('x', { address: '10.0.0.2', secret: 's' }))).toBe(true);
    expect((await rows()).map((r) => r.name)).toEqual(['vpn', 'x']);
  });
});
