// Enumeration (issue 16 item 8): under hide_specific_error_message every failed check and every
// refused login look the same from outside (compared byte for byte, the time, threadid and
// signature masked), the reason is in the audit row; and an unknown login name costs as many
// password hashes as a known one (counted, never timed).
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { setConfig } from '../../src/core/system/config.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { hashesStarted, makeCryptHash } from '../../src/crypto/index.ts';
import { removeConfig } from '../helpers/config.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { ApiResponse, TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';

/** The answer as the client reads it, with what differs between any two answers masked. */
function masked(r: ApiResponse): string {
  return `${r.status} ${r.text
    .replace(/"time":\s*[0-9.]+/g, '"time":0')
    .replace(/"threadid":\s*\d+/g, '"threadid":0')
    .replace(/"signature":\s*"[^"]*"/g, '"signature":""')}`;
}

/** An SQLite user table whose passwords are bcrypt hashes (cost 10), for the hash counts. */
async function bcryptUsers(dir: string): Promise<string> {
  const path = join(dir, 'bcrypt-users.sqlite');
  const db = new BetterSqlite3(path);
  try {
    db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE, password TEXT)');
    db.prepare('INSERT INTO users (id, username, password) VALUES (1, ?, ?)').run(
      'sqlsam',
      await makeCryptHash('bcrypt', 'sampw'),
    );
  } finally {
    db.close();
  }
  return path;
}

describe.each(testDialects())('enumeration on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  const serials: Record<string, string> = {};

  useTokenServer(
    dialect,
    {
      realms: {
        realm1: [pwUser('alice', 1001), pwUser('bob', 1002), pwUser('carol', 1003), pwUser('dave', 1004)],
      },
      reset: ['policies'],
    },
    (t) => ({ s, op, admin } = t),
  );

  const hide = () =>
    setPolicy(op, 'hide', { scope: 'authentication', action: 'hide_specific_error_message' });
  const enroll = async (user: string) =>
    (await initToken(op, { type: 'hotp', otpkey: KEY, pin: '1234', user, realm: 'realm1' })).serial;
  const setToken = (serial: string, values: { active?: number; revoked?: number }) =>
    s.rt.store.db.updateTable('token').set(values).where('serial', '=', serial).execute();
  const lastAudit = () =>
    s.rt.store.db.selectFrom('audit').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();

  /** The failing checks: each names its reason, as the audit row must record it. */
  const failures = (): [string, Record<string, string>, string | RegExp][] => [
    ['wrong PIN', { user: 'alice', pass: `9999${hotp(KEY, 5)}` }, /wrong otp pin/],
    ['wrong OTP', { user: 'alice', pass: '1234000000' }, /wrong otp value/],
    ['unknown user', { user: 'ghost', pass: '1234000000' }, 'User <ghost@realm1> does not exist.'],
    ['user in an unknown realm', { user: 'alice', realm: 'nowhere', pass: 'x' }, /does not exist/],
    ['no token', { user: 'bob', pass: '1234000000' }, 'The user has no tokens assigned'],
    ['disabled token', { user: 'carol', pass: '1234000000' }, /disabled/],
    ['locked token', { user: 'dave', pass: '1234000000' }, /locked/i],
    ['unknown serial', { serial: 'NOSUCH0001', pass: '1234000000' }, /could not be found/],
    [
      'serial of another user',
      { user: 'bob', serial: serials.alice!, pass: '1234000000' },
      /does not belong/,
    ],
    ['serial of a disabled token', { serial: serials.carol!, pass: '1234000000' }, /disabled/],
  ];

  it('answers every failed /validate/check, samlcheck and radiuscheck alike, with the reason in the audit', async () => {
    serials.alice = await enroll('alice');
    serials.carol = await enroll('carol');
    serials.dave = await enroll('dave');
    await setToken(serials.carol, { active: 0 });
    await setToken(serials.dave, { revoked: 1 });
    // Without the policy the answers tell the cases apart.
    const plain = new Set<string>();
    for (const [, params] of failures()) plain.add(masked(await s.call('POST', '/validate/check', params)));
    expect(plain.size).toBeGreaterThan(3);

    await hide();
    // A failed samlcheck of a known user would show its attributes with this; hidden, it shows none.
    await setConfig(op, [{ key: 'ReturnSamlAttributesOnFail', value: 'True' }]);
    for (const path of ['/validate/check', '/validate/samlcheck', '/validate/radiuscheck']) {
      const answers = new Map<string, string>();
      for (const [name, params, reason] of failures()) {
        const r = await s.call('POST', path, params);
        answers.set(name, masked(r));
        const row = await lastAudit();
        expect(row.action, name).toContain(path);
        expect(row.info, name).toMatch(reason);
        expect(row.success, name).toBeFalsy();
        if (path === '/validate/check') {
          expect(r.status, name).toBe(200);
          expect(r.json.result, name).toEqual({ status: true, value: false, authentication: 'REJECT' });
          expect(r.json.detail, name).toEqual({
            message: 'Authentication failed.',
            threadid: expect.any(Number),
          });
        }
        if (path === '/validate/samlcheck')
          expect(r.json.result.value, name).toEqual({ auth: false, attributes: {} });
        if (path === '/validate/radiuscheck') expect(r.status, name).toBe(400);
      }
      expect(new Set(answers.values()).size, [...answers].join('\n')).toBe(1);
    }
    await removeConfig(s.rt, ['ReturnSamlAttributesOnFail']);
    // The policy leaves a success alone.
    const good = await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(good.json.result.value).toBe(true);
  });

  it('answers every refused /auth alike under the policy, with the reason in the audit', async () => {
    await setPolicy(op, 'sup', { scope: 'admin', action: '*' }); // keeps the administrator's rights
    const refusals: [string, Record<string, string>, string | RegExp][] = [
      ['unknown administrator', { username: 'nobody', password: 'x' }, /Wrong credentials/],
      ['wrong administrator password', { username: 'admin', password: 'wrong' }, /Wrong credentials/],
      ['unknown realm user', { username: 'ghost@realm1', password: 'x' }, /Wrong credentials/],
      ['wrong user password', { username: 'alice@realm1', password: 'wrong' }, /Wrong credentials/],
      [
        'user in an unknown realm',
        { username: 'alice', realm: 'nowhere', password: 'alicepw' },
        /Unknown realm/,
      ],
    ];
    const plain = new Set<string>();
    for (const [, params] of refusals) plain.add(masked(await s.call('POST', '/auth', params)));
    expect(plain.size).toBe(2); // the unknown realm is named without the policy

    await hide();
    const answers = new Set<string>();
    for (const [name, params, reason] of refusals) {
      const r = await s.call('POST', '/auth', params);
      answers.add(masked(r));
      expect(r.status, name).toBe(401);
      expect(r.json.result.error, name).toEqual({ code: 4031, message: 'Authentication failed.' });
      const row = await lastAudit();
      expect(row.action, name).toContain('/auth');
      expect(row.info, name).toMatch(reason);
      expect(row.authentication, name).toBe('REJECT');
    }
    expect(answers.size).toBe(1);
    expect(JSON.parse([...answers][0]!.slice(4)).detail).toBeNull();
    // A login that login_mode disables is refused alike too; a good password still logs in.
    await setPolicy(op, 'off', { scope: 'webui', action: 'login_mode=disable', realm: 'realm1' });
    const off = await s.call('POST', '/auth', { username: 'alice@realm1', password: 'alicepw' });
    expect(answers.has(masked(off))).toBe(true);
    expect((await lastAudit()).info).toBe('The login for this user is disabled.');
    expect((await s.call('POST', '/auth', { username: 'admin', password: s.adminPassword })).status).toBe(
      200,
    );
  });

  it('spends as many password hashes on an unknown login name as on a known one', async () => {
    const file = await bcryptUsers(s.dataDir);
    const map = JSON.stringify({ userid: 'id', username: 'username', password: 'password' });
    const sqlResolver = { type: 'sqlresolver', Driver: 'sqlite', Database: file, Table: 'users', Map: map };
    ok(await s.call('POST', '/resolver/sqlres', sqlResolver, admin));
    ok(await s.call('POST', '/realm/sqlrealm', { resolvers: 'sqlres' }, admin));
    const hashes = async (params: Record<string, string>) => {
      const before = hashesStarted();
      const r = await s.call('POST', '/auth', params);
      expect(r.status, r.text).toBe(401);
      return hashesStarted() - before;
    };
    await hashes({ username: 'nobody', password: 'x' }); // makes the argon2id decoy once
    // A realm user: the administrator's decoy and the user's own hash (sha512-crypt, bcrypt).
    const passwdKnown = await hashes({ username: 'alice@realm1', password: 'wrong' });
    expect(passwdKnown).toBe(2);
    expect(await hashes({ username: 'ghost@realm1', password: 'wrong' })).toBe(passwdKnown);
    expect(await hashes({ username: 'alice', realm: 'nowhere', password: 'wrong' })).toBe(passwdKnown);
    expect((await s.call('POST', '/auth', { username: 'sqlsam@sqlrealm', password: 'sampw' })).status).toBe(
      200,
    );
    const sqlKnown = await hashes({ username: 'sqlsam@sqlrealm', password: 'wrong' });
    expect(sqlKnown).toBe(2);
    expect(await hashes({ username: 'sqlghost@sqlrealm', password: 'wrong' })).toBe(sqlKnown);
    // A local administrator: the argon2id check, then the name as a user of the default realm.
    const adminWrong = await hashes({ username: 'admin', password: 'wrong' });
    expect(adminWrong).toBe(passwdKnown);
    expect(await hashes({ username: 'nobody', password: 'wrong' })).toBe(adminWrong);
    // The same under the policy.
    await hide();
    expect(await hashes({ username: 'ghost@realm1', password: 'wrong' })).toBe(passwdKnown);
    expect(await hashes({ username: 'alice@realm1', password: 'wrong' })).toBe(passwdKnown);
  });
});
