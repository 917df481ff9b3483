// The luks application over HTTP (reference 6.4): a YubiKey TOTP token (serial UBOM…) attached to
// a machine gives GET /machine/authitem/luks the challenge and its untruncated HMAC-SHA1 response,
// recomputed here by Debian's openssl, with slot and partition; its attachment needs a machine and
// a TOTP token; a bad challenge or slot is a clear error. GET /application/ lists every
// application's options for any administrator.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const SEED_HEX = '3132333435363738393031323334353637383930';

/** HMAC-SHA1 of the hex challenge with the seed, computed by openssl, not by authsrv's code. */
function opensslHmac(challengeHex: string, dir: string): string {
  const file = join(dir, 'challenge.bin');
  writeFileSync(file, Buffer.from(challengeHex, 'hex'));
  const out = execFileSync(
    'openssl',
    ['dgst', '-sha1', '-mac', 'HMAC', '-macopt', `hexkey:${SEED_HEX}`, file],
    {
      encoding: 'utf8',
    },
  );
  return (out.trim().split('= ').at(-1) ?? '').trim();
}

describe.each(testDialects())('luks on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(dialect, { reset: ['tokens', 'policies', 'audit'] }, (t) => ({ s, admin } = t));
  beforeAll(async () => {
    const hosts = join(s.dataDir, 'hosts');
    writeFileSync(hosts, '10.0.0.7 laptop7\n10.0.0.8 laptop8\n');
    ok(await s.call('POST', '/machineresolver/lab', { type: 'hosts', filename: hosts }, admin));
  });
  afterEach(async () => {
    for (const table of ['machinetoken_option', 'machinetoken'] as const)
      await s.rt.store.db.deleteFrom(table).execute();
  });

  const call = (method: string, path: string, params: Record<string, string> = {}) =>
    s.call(method, path, params, admin);
  const totp = async (serial: string) =>
    ok(await call('POST', '/token/init', { type: 'totp', serial, otpkey: SEED_HEX }));
  const items = async (params: Record<string, string>) =>
    ok(await call('GET', '/machine/authitem/luks', params)) as { luks: Record<string, unknown>[] };

  it('answers a given challenge with the full HMAC-SHA1 of the seed, the slot and the partition', async () => {
    await totp('UBOM1001');
    await totp('TOTP1002');
    ok(
      await call('POST', '/machine/token', {
        serial: 'UBOM1001',
        application: 'luks',
        hostname: 'laptop7',
        slot: '3',
        partition: '/dev/nvme0n1p3',
      }),
    );
    ok(
      await call('POST', '/machine/token', { serial: 'TOTP1002', application: 'luks', hostname: 'laptop7' }),
    );
    const challenge = '0f'.repeat(32);
    expect(await items({ hostname: 'laptop7', challenge })).toEqual({
      luks: [
        {
          serial: 'UBOM1001',
          slot: '3',
          partition: '/dev/nvme0n1p3',
          challenge,
          response: opensslHmac(challenge, s.dataDir),
        },
      ],
    });
    expect(await items({ hostname: 'laptop8', challenge })).toEqual({ luks: [] });
  });

  it('makes a random 32-byte challenge when none is given; slot 1 by default', async () => {
    await totp('UBOM2001');
    ok(
      await call('POST', '/machine/token', { serial: 'UBOM2001', application: 'luks', hostname: 'laptop8' }),
    );
    const [a] = (await items({ hostname: 'laptop8' })).luks;
    const [b] = (await items({ hostname: 'laptop8' })).luks;
    expect(a?.challenge).toMatch(/^[0-9a-f]{64}$/);
    expect(a?.challenge).not.toBe(b?.challenge);
    expect(a?.response).toBe(opensslHmac(String(a?.challenge), s.dataDir));
    expect(a?.slot).toBe('1');
    ok(await call('POST', '/token/disable/UBOM2001'));
    expect(await items({ hostname: 'laptop8' })).toEqual({ luks: [] });
  });

  it('refuses an attachment without a machine, of another type or with a bad slot, and a bad challenge', async () => {
    await totp('UBOM3001');
    ok(await call('POST', '/token/init', { type: 'hotp', serial: 'UBOM3002', otpkey: SEED_HEX }));
    const refused: [Record<string, string>, string | RegExp][] = [
      [{ serial: 'UBOM3001', application: 'luks' }, /machine/i],
      [
        { serial: 'UBOM3002', application: 'luks', hostname: 'laptop7' },
        'The application luks takes tokens of type totp; UBOM3002 is a hotp token.',
      ],
      [
        { serial: 'UBOM3001', application: 'luks', hostname: 'laptop7', slot: '9' },
        'The option slot must be a LUKS key slot from 0 to 7.',
      ],
    ];
    for (const [params, message] of refused)
      expectServiceError(await call('POST', '/machine/token', params), 905, message);
    expect(await s.rt.store.db.selectFrom('machinetoken').selectAll().execute()).toEqual([]);
    const mtid = ok(
      await call('POST', '/machine/token', { serial: 'UBOM3001', application: 'luks', hostname: 'laptop7' }),
    );
    expectServiceError(
      await call('POST', '/machine/tokenoption', { mtid: String(mtid), slot: 'x' }),
      905,
      'The option slot must be a LUKS key slot from 0 to 7.',
    );
    expectServiceError(
      await call('GET', '/machine/authitem/luks', { hostname: 'laptop7', challenge: 'not hex' }),
      905,
      'The challenge must be hexadecimal, 1 to 64 bytes.',
    );
  });

  it('lists every application with its options by token type, for any administrator, with an audit row', async () => {
    const apps = ok(await call('GET', '/application/')) as Record<
      string,
      { options: Record<string, unknown> }
    >;
    expect(Object.keys(apps).sort()).toEqual(['luks', 'offline', 'ssh']);
    expect(apps.luks?.options).toEqual({
      totp: {
        slot: expect.objectContaining({ type: 'int', value: ['0', '1', '2', '3', '4', '5', '6', '7'] }),
        partition: expect.objectContaining({ type: 'str' }),
      },
    });
    expect(Object.keys(apps.offline?.options.hotp as object).sort()).toEqual(['count', 'rounds']);
    expect(Object.keys(apps.ssh?.options.sshkey as object).sort()).toEqual(['service_id', 'user']);
    expect((await s.call('GET', '/application/')).status).toBe(401);
    const audit = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success'])
      .where('action', 'like', 'GET /application/%')
      .execute();
    expect(audit.map((r) => Number(r.success))).toEqual([1, 0]);
  });
});
