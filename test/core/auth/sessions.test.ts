import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.ts';
import { addAdmin, deleteAdmin, setAdminPassword } from '../../../src/core/auth/admins.ts';
import { type LoginResult, login, verifyJwt } from '../../../src/core/auth/auth.ts';
import { endSessions, SESSION_ENDED } from '../../../src/core/auth/sessions.ts';
import { REUSE_MS, readCounters } from '../../../src/core/change-counters.ts';
import type { Runtime } from '../../../src/core/context.ts';
import { deleteRealm, setRealm } from '../../../src/core/realm/index.ts';
import { saveResolver } from '../../../src/core/resolver/index.ts';
import { openRuntime } from '../../../src/core/runtime.ts';
import { AuthError, ERR, ResourceNotFoundError, UserError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { readsOf, recordSql } from '../../helpers/sql-recorder.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

const T0 = new Date('2026-03-01T12:00:00.200Z');
const later = (ms: number) => new Date(T0.getTime() + ms);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDialects())('sessions on %s', (dialect) => {
  let t: TestRuntime;
  /** A second node on the same database; its configuration drops `sup` from the superuser realms. */
  let b: Runtime;

  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0, config: { 'security.superuser_realms': 'sup' } });
    const config = loadConfig({
      env: {},
      overrides: { data_dir: t.dataDir, database_url: t.rt.config.databaseUrl, node_name: 'node-b' },
    });
    b = await openRuntime(config, { logger: pino({ level: 'silent' }), clock: () => t.rt.clock() });
    const file = await writePasswdFile(t.dataDir, 'users', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
      { login: 'boss', password: 'bosspw', uid: 1002 },
    ]);
    await saveResolver(t.ctx, 'files', { type: 'passwdresolver', Filename: file });
    await saveResolver(t.ctx, 'other', { type: 'passwdresolver', Filename: file });
    await setRealm(t.ctx, 'realm1', ['files', 'other'], {});
    await setRealm(t.ctx, 'sup', ['files'], {});
    await addAdmin(t.ctx, 'ops', 'Ops-pass-123');
  });
  afterEach(async () => {
    await b?.store.close();
    await t?.close();
  });

  const tokenOf = async (username: string, password: string, realm?: string) =>
    ((await login(t.rt, { username, password, realm, client: '10.0.0.1' })) as LoginResult).token;
  const verify = (rt: Runtime, token: string) => verifyJwt(rt, token, ['admin', 'user'], '10.0.0.1');
  const expectEnded = async (rt: Runtime, token: string) => {
    const e = await verify(rt, token).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthError);
    expect(e).toMatchObject({ message: SESSION_ENDED, code: ERR.JwtInvalid });
  };
  /** Past the time node b may reuse a read of the counters. */
  const pastReuse = () => sleep(REUSE_MS + 50);

  it("ends a local administrator's sessions on deletion, on both nodes, also for a new one of that name", async () => {
    const old = await tokenOf('ops', 'Ops-pass-123');
    expect((await verify(b, old)).username).toBe('ops');
    await deleteAdmin(t.ctx, 'ops');
    await expectEnded(t.rt, old);
    await pastReuse();
    await expectEnded(b, old);
    t.setNow(later(2000));
    await addAdmin(t.ctx, 'ops', 'Ops-pass-456');
    await expectEnded(t.rt, old);
    const fresh = await tokenOf('ops', 'Ops-pass-456');
    expect((await verify(t.rt, fresh)).username).toBe('ops');
    // Node b read its counters a moment ago, before the new administrator existed: it reads them
    // afresh before it refuses.
    expect((await verify(b, fresh)).username).toBe('ops');
  });

  it('ends them on a password change; a token of the second of the change stands, an earlier one does not', async () => {
    const before = await tokenOf('ops', 'Ops-pass-123');
    t.setNow(later(1000));
    const sameSecond = await tokenOf('ops', 'Ops-pass-123');
    t.setNow(later(1300));
    await setAdminPassword(t.ctx, 'ops', 'Ops-pass-456');
    await expectEnded(t.rt, before);
    // iat has whole seconds: the token issued 300 ms before the change, in its second, stands.
    expect((await verify(t.rt, sameSecond)).username).toBe('ops');
    t.setNow(later(1500));
    const after = await tokenOf('ops', 'Ops-pass-456');
    expect((await verify(t.rt, after)).username).toBe('ops');
    await pastReuse();
    await expectEnded(b, before);
    expect((await verify(b, after)).username).toBe('ops');
  });

  it("logs out a local administrator: that one's tokens end, not another's", async () => {
    const ops = await tokenOf('ops', 'Ops-pass-123');
    await addAdmin(t.ctx, 'ops2', 'Ops-pass-123');
    const ops2 = await tokenOf('ops2', 'Ops-pass-123');
    t.setNow(later(1000));
    expect(await endSessions(t.ctx, 'ops')).toEqual({
      name: 'ops',
      realm: '',
      validAfter: '2026-03-01T12:00:01.200Z',
    });
    await expectEnded(t.rt, ops);
    expect((await verify(t.rt, ops2)).username).toBe('ops2');
    expect((await verify(t.rt, await tokenOf('ops', 'Ops-pass-123'))).username).toBe('ops');
    await expect(endSessions(t.ctx, 'nobody')).rejects.toThrow(ResourceNotFoundError);
  });

  it('logs out a realm user (any spelling of the name), who can log in again', async () => {
    const alice = await tokenOf('alice', 'alicepw', 'realm1');
    const boss = await tokenOf('boss', 'bosspw', 'realm1');
    t.setNow(later(1000));
    expect(await endSessions(t.ctx, 'ALICE', 'Realm1')).toEqual({
      name: 'ALICE',
      realm: 'realm1',
      validAfter: '2026-03-01T12:00:01.200Z',
    });
    await expectEnded(t.rt, alice);
    expect((await verify(t.rt, boss)).username).toBe('boss');
    const again = await tokenOf('alice', 'alicepw', 'realm1');
    expect((await verify(t.rt, again)).username).toBe('alice');
    // A second logout replaces the first.
    t.setNow(later(3000));
    await endSessions(t.ctx, 'alice', 'realm1');
    await expectEnded(t.rt, again);
    await pastReuse();
    await expectEnded(b, again);
    await expect(endSessions(t.ctx, 'alice', 'nosuch')).rejects.toThrow(UserError);
  });

  it("ends a realm user's sessions when the resolver that found the user leaves the realm, or the realm goes", async () => {
    const alice = await tokenOf('alice', 'alicepw', 'realm1');
    const claims = JSON.parse(Buffer.from(alice.split('.')[1]!, 'base64url').toString());
    expect(claims.resolver).toBe('files');
    // Another resolver leaving the realm changes nothing.
    await setRealm(t.ctx, 'realm1', ['files'], {});
    expect((await verify(t.rt, alice)).username).toBe('alice');
    await setRealm(t.ctx, 'realm1', ['other'], {});
    await expectEnded(t.rt, alice);
    const viaOther = await tokenOf('alice', 'alicepw', 'realm1');
    expect((await verify(t.rt, viaOther)).username).toBe('alice');
    await deleteRealm(t.ctx, 'realm1');
    await expectEnded(t.rt, viaOther);
  });

  it('ends the sessions of an administrator of a realm that is no longer a superuser realm', async () => {
    const boss = await tokenOf('boss', 'bosspw', 'sup');
    expect(await verify(t.rt, boss)).toMatchObject({ role: 'admin', realm: 'sup' });
    // Node b's configuration no longer lists `sup`.
    await expectEnded(b, boss);
  });

  it('checks from memory: no read of the session tables, and at most one of the counters, per request', async () => {
    const ops = await tokenOf('ops', 'Ops-pass-123');
    const alice = await tokenOf('alice', 'alicepw', 'realm1');
    await verify(b, ops);
    await verify(b, alice);
    const sql = recordSql(b);
    for (let i = 0; i < 5; i++) {
      await verify(b, ops);
      await verify(b, alice);
    }
    const seen = sql.take();
    expect(readsOf(seen, 'meta'), seen.join('\n')).toBeLessThanOrEqual(1);
    for (const table of ['admin', 'session_revocation', 'realm', 'resolver'])
      expect(readsOf(seen, table), seen.join('\n')).toBe(0);
    // A change reloads the tables once.
    await endSessions(t.ctx, 'alice', 'realm1');
    await readCounters(b.store);
    await verify(b, ops);
    await verify(b, ops);
    expect(readsOf(sql.take(), 'admin')).toBe(1);
  });
});
