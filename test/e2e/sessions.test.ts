// Sessions end when the administrator does (issue 16): the JWT of a deleted administrator, of one
// whose password changed or who was logged out, and of a realm user whose realm lost the user's
// resolver, is answered like an invalid token; a new login works.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addAdmin, deleteAdmin, setAdminPassword } from '../../src/core/auth/admins.ts';
import { endSessions, SESSION_ENDED } from '../../src/core/auth/sessions.ts';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type ApiResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { ok, userToken, writePasswdFile } from '../helpers/user-stores.ts';

describe.each(testDialects())('sessions over the API on %s', (dialect) => {
  let s: TestServer;
  let operator: Context;
  /** Seconds added to the real time by the server's clock: JWTs carry whole seconds. */
  let offset = 0;
  let admin: string;

  beforeAll(async () => {
    s = await startTestServer({ dialect, clock: () => new Date(Date.now() + offset * 1000) });
    operator = withCaller(s.rt, localOperator());
    admin = await s.adminToken();
    const file = await writePasswdFile(s.dataDir, 'users', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
    ]);
    ok(await s.call('POST', '/resolver/files', { type: 'passwdresolver', Filename: file }, admin));
    ok(await s.call('POST', '/resolver/more', { type: 'passwdresolver', Filename: file }, admin));
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'files' }, admin));
  });
  afterAll(async () => s?.close());
  beforeEach(() => {
    offset += 2;
  });

  const tokens = (token: string) => s.call('GET', '/token/', {}, token);
  /** The answer to an invalid JWT (reference 2.3): HTTP 401, code 4304, detail null. */
  function expectEnded(r: ApiResponse) {
    expect(r.status, r.text).toBe(401);
    expect(r.json.detail).toBeNull();
    expect(r.json.result).toMatchObject({ status: false, error: { code: 4304, message: SESSION_ENDED } });
    expect(r.json.result.error.message).toMatch(
      /^Authentication failure\. Error decoding the Authorization token: /,
    );
  }
  const loginAs = async (username: string, password: string) => {
    const r = await s.call('POST', '/auth', { username, password });
    expect(r.status, r.text).toBe(200);
    return r.json.result.value.token as string;
  };

  it("refuses a deleted administrator's JWT; one created again under that name logs in anew", async () => {
    await addAdmin(operator, 'gone', 'Gone-pass-123');
    const old = await loginAs('gone', 'Gone-pass-123');
    expect((await tokens(old)).status).toBe(200);
    offset += 2;
    await deleteAdmin(operator, 'gone');
    expectEnded(await tokens(old));
    expectEnded(await s.call('POST', '/policy/p1', { scope: 'admin', action: 'tokenlist' }, old));
    expect((await s.call('GET', '/policy/', {}, admin)).json.result.value).toEqual({});
    expect((await s.call('POST', '/auth', { username: 'gone', password: 'Gone-pass-123' })).status).toBe(401);
    await addAdmin(operator, 'gone', 'Gone-pass-456');
    expectEnded(await tokens(old));
    expect((await tokens(await loginAs('gone', 'Gone-pass-456'))).status).toBe(200);
  });

  it('refuses the JWT issued before a password change, and accepts the next login', async () => {
    await addAdmin(operator, 'chg', 'Chg-pass-123');
    const old = await loginAs('chg', 'Chg-pass-123');
    offset += 2;
    await setAdminPassword(operator, 'chg', 'Chg-pass-456');
    expectEnded(await tokens(old));
    expect((await tokens(await loginAs('chg', 'Chg-pass-456'))).status).toBe(200);
    // The other administrators keep theirs.
    expect((await tokens(admin)).status).toBe(200);
  });

  it('refuses the JWT of a logged-out administrator and realm user; both log in again', async () => {
    await addAdmin(operator, 'out', 'Out-pass-123');
    const old = await loginAs('out', 'Out-pass-123');
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    expect((await tokens(alice)).status).toBe(200);
    offset += 2;
    await endSessions(operator, 'out');
    await endSessions(operator, 'alice', 'realm1');
    expectEnded(await tokens(old));
    expectEnded(await tokens(alice));
    expect((await tokens(await loginAs('out', 'Out-pass-123'))).status).toBe(200);
    expect((await tokens(await userToken(s, 'alice', 'alicepw', 'realm1'))).status).toBe(200);
  });

  it("refuses a realm user's JWT once the resolver that found the user leaves the realm", async () => {
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'more' }, admin));
    expectEnded(await tokens(alice));
    expect((await tokens(await userToken(s, 'alice', 'alicepw', 'realm1'))).status).toBe(200);
  });
});
