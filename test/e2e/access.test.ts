// Enforcement of administrator and user rights (issue 4): every endpoint checks its right once a
// policy exists in the caller's scope; audit visibility, custom attributes, webui login policies,
// rights in /auth. Policies are written through the service as the CLI operator, so that a test
// can never lock itself out; behaviour is observed over HTTP.
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newAuditEntry, writeAudit } from '../../src/core/audit/index.ts';
import { addAdmin } from '../../src/core/auth/admins.ts';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import {
  compiledPolicies,
  deletePolicy,
  getPolicies,
  type PolicyInput,
  setPolicy,
} from '../../src/core/policy/index.ts';
import { tokenTypes } from '../../src/tokens/registry.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime } from '../helpers/runtime.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectServiceError, jsonCall, ok, userToken, writePasswdFile } from '../helpers/user-stores.ts';

const DENIED_ADMIN = (action: string) =>
  `Admin actions are defined, but the action ${action} is not allowed!`;
const DENIED_USER = (action: string) => `User actions are defined, but the action ${action} is not allowed!`;

describe.each(testDialects())('rights enforcement over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  const auditorPassword = 'Auditor-pass-1';

  beforeAll(async () => {
    s = await startTestServer({ dialect, config: { 'security.superuser_realms': 'helpdesk' } });
    op = withCaller(s.rt, localOperator());
    admin = await s.adminToken();
    await addAdmin(op, 'auditor', auditorPassword);
    const f1 = await writePasswdFile(s.dataDir, 'p1', [
      { login: 'alice', password: 'alicepw', uid: 1001, gecos: 'Alice A,,,,alice@example.com' },
      { login: 'bob', password: 'bobpw', uid: 1002, gecos: 'Bob B,,,,bob@other.org' },
    ]);
    const f2 = await writePasswdFile(s.dataDir, 'p2', [{ login: 'carol', password: 'carolpw', uid: 2001 }]);
    const f3 = await writePasswdFile(s.dataDir, 'p3', [{ login: 'helper', password: 'helperpw', uid: 3001 }]);
    ok(await s.call('POST', '/resolver/res1', { type: 'passwdresolver', Filename: f1 }, admin));
    ok(await s.call('POST', '/resolver/res2', { type: 'passwdresolver', Filename: f2 }, admin));
    ok(await s.call('POST', '/resolver/res3', { type: 'passwdresolver', Filename: f3 }, admin));
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'res1' }, admin));
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'res2' }, admin));
    ok(await s.call('POST', '/realm/helpdesk', { resolvers: 'res3' }, admin));
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    for (const name of Object.keys(await getPolicies(s.rt))) await deletePolicy(op, name);
  });

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const auditor = () => userToken(s, 'auditor', auditorPassword);

  it('lets every administrator do everything while no admin policy exists', async () => {
    ok(await s.call('GET', '/policy/', {}, admin));
    ok(await s.call('GET', '/resolver/', {}, await auditor()));
    // Policies of other scopes do not restrict administrators.
    await policy('u1', { scope: 'user', action: 'auditlog' });
    await policy('w1', { scope: 'webui', action: 'logout_time=300' });
    ok(await s.call('GET', '/resolver/', {}, admin));
  });

  it('refuses a locked-out administrator (admin policy without policywrite) and changes nothing', async () => {
    await policy('readonly', { scope: 'admin', action: 'policyread', adminuser: 'admin' });
    expect(Object.keys(ok(await s.call('GET', '/policy/', {}, admin)))).toEqual(['readonly']);
    const r = await s.call('POST', '/policy/newpol', { scope: 'admin', action: 'tokenlist' }, admin);
    expectServiceError(r, 303, DENIED_ADMIN('policywrite'));
    expectServiceError(
      await s.call('DELETE', '/policy/readonly', {}, admin),
      303,
      DENIED_ADMIN('policydelete'),
    );
    expectServiceError(
      await s.call('POST', '/policy/disable/readonly', {}, admin),
      303,
      DENIED_ADMIN('policywrite'),
    );
    expect(Object.keys(await getPolicies(s.rt))).toEqual(['readonly']);
    expect((await getPolicies(s.rt)).readonly?.active).toBe(true);
    expectServiceError(await s.call('GET', '/resolver/', {}, admin), 303, DENIED_ADMIN('resolverread'));
    // Another administrator matches no policy at all.
    expectServiceError(await s.call('GET', '/policy/', {}, await auditor()), 303, DENIED_ADMIN('policyread'));
    // The refusal is audited as a failure.
    const rows = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .where('action', '=', 'POST /policy/<name>')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(rows[0]).toMatchObject({ success: 0 });
    expect(rows[0]!.info).toContain('policywrite');
    // The rights of a new login say the same.
    const login = ok(await s.call('POST', '/auth', { username: 'admin', password: s.adminPassword }));
    expect(login.rights).toEqual(['policyread']);
    expect(login.menus).toEqual(['config']);
    // Disabling the policy (by the operator) lifts the lock at once.
    await setPolicy(op, 'readonly', {
      scope: 'admin',
      action: 'policyread',
      adminuser: 'admin',
      active: false,
    });
    ok(await s.call('GET', '/resolver/', {}, admin));
  });

  // Every endpoint with a right: the caller holds every right but that one (`*, -<right>`).
  const ENDPOINTS: [string, string, Record<string, string>, string][] = [
    ['GET', '/policy/', {}, 'policyread'],
    ['GET', '/policy/p', {}, 'policyread'],
    ['GET', '/policy/check', { scope: 'admin', action: 'x' }, 'policyread'],
    ['GET', '/policy/defs', {}, 'policyread'],
    ['GET', '/policy/defs/admin', {}, 'policyread'],
    ['GET', '/policy/export/p.txt', {}, 'policyread'],
    ['POST', '/policy/p2', { scope: 'admin', action: 'tokenlist' }, 'policywrite'],
    ['POST', '/policy/enable/p', {}, 'policywrite'],
    ['POST', '/policy/disable/p', {}, 'policywrite'],
    ['POST', '/policy/import/p.txt', {}, 'policywrite'],
    ['PATCH', '/policy/p', { name: 'p3' }, 'policywrite'],
    ['DELETE', '/policy/p', {}, 'policydelete'],
    ['GET', '/resolver/', {}, 'resolverread'],
    ['GET', '/resolver/res1', {}, 'resolverread'],
    ['POST', '/resolver/resX', { type: 'passwdresolver', Filename: '/etc/passwd' }, 'resolverwrite'],
    ['POST', '/resolver/test', { type: 'passwdresolver', Filename: '/etc/passwd' }, 'resolverwrite'],
    ['DELETE', '/resolver/res1', {}, 'resolverdelete'],
    ['POST', '/realm/realmX', { resolvers: 'res1' }, 'resolverwrite'],
    ['DELETE', '/realm/realm1', {}, 'resolverdelete'],
    ['POST', '/defaultrealm/realm1', {}, 'resolverwrite'],
    ['DELETE', '/defaultrealm', {}, 'resolverdelete'],
    ['GET', '/system/', {}, 'configread'],
    ['GET', '/system/splitAtSign', {}, 'configread'],
    ['POST', '/system/setConfig', { key: 'k1', value: 'v' }, 'configwrite'],
    ['POST', '/system/setDefault', { splitAtSign: '1' }, 'configwrite'],
    ['DELETE', '/system/k1', {}, 'configdelete'],
    ['GET', '/system/documentation', {}, 'system_documentation'],
    ['GET', '/system/random', {}, 'getrandom'],
    ['POST', '/system/hsm', { password: 'x' }, 'set_hsm_password'],
    ['GET', '/audit/', {}, 'auditlog'],
    ['GET', '/audit/a.csv', {}, 'auditlog_download'],
    ['GET', '/user/', { realm: 'realm1' }, 'userlist'],
    ['POST', '/user/', { user: 'new', resolver: 'res1' }, 'adduser'],
    ['PUT', '/user/', { user: 'alice', resolver: 'res1' }, 'updateuser'],
    ['DELETE', '/user/res1/alice', {}, 'deleteuser'],
  ];

  it('checks the declared right of every admin endpoint before doing anything', async () => {
    await policy('p', { scope: 'admin', action: 'tokenlist', adminuser: 'nobody' });
    for (const [method, path, params, right] of ENDPOINTS) {
      await policy('all-but', { scope: 'admin', action: `*, -${right}`, adminuser: 'admin' });
      const r = await s.call(method, path, params, admin);
      try {
        expectServiceError(r, 303, DENIED_ADMIN(right));
      } catch (e) {
        throw new Error(`${method} ${path}: ${(e as Error).message}`);
      }
    }
    await policy('all-but', { scope: 'admin', action: '*', adminuser: 'admin' });
    expect(Object.keys(await getPolicies(s.rt))).toEqual(['all-but', 'p']);
    // Nothing was changed by the refused calls.
    const realms = ok(await s.call('GET', '/realm/', {}, admin));
    expect(Object.keys(realms).sort()).toEqual(['helpdesk', 'realm1', 'realm2']);
    expect(Object.keys(ok(await s.call('GET', '/resolver/', {}, admin))).sort()).toEqual([
      'res1',
      'res2',
      'res3',
    ]);
    // Endpoints without a right stay open to any administrator.
    ok(await s.call('GET', '/realm/superuser', {}, admin));
    ok(await s.call('GET', '/system/gpgkeys', {}, admin));
  });

  it('matches the target realm and user of admin requests', async () => {
    await policy('helpdesk1', {
      scope: 'admin',
      action: 'userlist, resolverwrite',
      realm: 'realm1',
      adminuser: 'admin',
    });
    expect(
      ok(await s.call('GET', '/user/', { realm: 'realm1' }, admin)).map(
        (u: { username: string }) => u.username,
      ),
    ).toEqual(['alice', 'bob']);
    expectServiceError(
      await s.call('GET', '/user/', { realm: 'realm2' }, admin),
      303,
      DENIED_ADMIN('userlist'),
    );
    // user@realm names the realm too, and so does the user's realm when no realm is given.
    ok(await s.call('GET', '/user/', { user: 'alice', realm: 'realm1' }, admin));
    expectServiceError(
      await s.call('GET', '/user/', { user: 'carol@realm2' }, admin),
      303,
      DENIED_ADMIN('userlist'),
    );
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'res1' }, admin));
    expectServiceError(
      await s.call('POST', '/realm/realm2', { resolvers: 'res2' }, admin),
      303,
      DENIED_ADMIN('resolverwrite'),
    );
    // Users named in the policy: only alice. (An update would keep omitted lists: start anew.)
    await deletePolicy(op, 'helpdesk1');
    await policy('helpdesk1', {
      scope: 'admin',
      action: 'userlist',
      realm: 'realm1',
      user: 'alice',
      adminuser: 'admin',
    });
    ok(await s.call('GET', '/user/', { user: 'alice', realm: 'realm1' }, admin));
    expectServiceError(
      await s.call('GET', '/user/', { user: 'bob', realm: 'realm1' }, admin),
      303,
      DENIED_ADMIN('userlist'),
    );
    // Resolver restrictions look the user up.
    await deletePolicy(op, 'helpdesk1');
    await policy('helpdesk1', { scope: 'admin', action: 'userlist', resolver: 'res1', adminuser: 'admin' });
    ok(await s.call('GET', '/user/', { user: 'bob', realm: 'realm1' }, admin));
    expectServiceError(
      await s.call('GET', '/user/', { user: 'carol', realm: 'realm2' }, admin),
      303,
      DENIED_ADMIN('userlist'),
    );
  });

  it('keeps a realm-restricted administrator inside his realms where a request names no realm', async () => {
    await policy('grant', { scope: 'admin', action: '*', adminuser: 'admin' });
    await policy('r1', {
      scope: 'admin',
      action: 'userlist, updateuser, adduser, deleteuser',
      realm: 'realm1',
      adminuser: 'auditor',
    });
    const aud = await auditor();
    const names = (v: { username: string }[]) => v.map((u) => u.username).sort();
    expect(names(ok(await s.call('GET', '/user/', {}, aud)))).toEqual(['alice', 'bob']);
    expectServiceError(
      await s.call('GET', '/user/', { resolver: 'res2' }, aud),
      303,
      DENIED_ADMIN('userlist'),
    );
    expect(ok(await s.call('GET', '/user/', { username: 'carol' }, aud))).toEqual([]);
    expectServiceError(
      await s.call('GET', '/user/attribute', { user: 'carol', realm: 'realm2' }, aud),
      303,
      DENIED_ADMIN('userlist'),
    );
    // Editing users of a resolver outside his realms, whatever realm the request claims.
    const refused: [string, string, Record<string, string>, string][] = [
      ['PUT', '/user/', { username: 'carol', resolver: 'res2' }, 'updateuser'],
      ['PUT', '/user/', { user: 'carol', realm: 'realm1', resolver: 'res2' }, 'updateuser'],
      ['POST', '/user/', { user: 'mallory', resolver: 'res2' }, 'adduser'],
      ['DELETE', '/user/res2/carol', {}, 'deleteuser'],
    ];
    for (const [method, path, params, right] of refused) {
      expectServiceError(await s.call(method, path, params, aud), 303, DENIED_ADMIN(right));
    }
    // In his realm the check passes (the passwd store then refuses to edit: not a policy error).
    const mine = await s.call('PUT', '/user/', { username: 'alice', resolver: 'res1' }, aud);
    expect(mine.json.result.error.code).not.toBe(303);
    // GET /realm/ shows the realms of his policies; a policy with `*` shows all.
    expect(Object.keys(ok(await s.call('GET', '/realm/', {}, aud)))).toEqual(['realm1']);
    await policy('r1', { scope: 'admin', action: 'userlist', realm: '*', adminuser: 'auditor' });
    expect(Object.keys(ok(await s.call('GET', '/realm/', {}, aud))).sort()).toEqual([
      'helpdesk',
      'realm1',
      'realm2',
    ]);
  });

  it('matches administrators of a superuser realm by adminrealm, and by client address', async () => {
    await policy('grant', { scope: 'admin', action: '*', adminuser: 'admin' });
    await policy('desk', { scope: 'admin', action: 'userlist', adminrealm: 'helpdesk' });
    const helper = await userToken(s, 'helper', 'helperpw', 'helpdesk');
    expect(decodeJwt(helper).role).toBe('admin');
    ok(await s.call('GET', '/user/', { realm: 'realm1' }, helper));
    expectServiceError(await s.call('GET', '/resolver/', {}, helper), 303, DENIED_ADMIN('resolverread'));
    // The test client is 127.0.0.1.
    await policy('grant', { scope: 'admin', action: '*', adminuser: 'admin', client: '10.0.0.0/8' });
    expectServiceError(await s.call('GET', '/resolver/', {}, admin), 303, DENIED_ADMIN('resolverread'));
    await policy('grant', {
      scope: 'admin',
      action: '*',
      adminuser: 'admin',
      client: '127.0.0.0/8, !127.0.0.2',
    });
    ok(await s.call('GET', '/resolver/', {}, admin));
  });

  it('evaluates request header conditions', async () => {
    await policy('ops', {
      scope: 'admin',
      action: 'resolverread',
      conditions: [['HTTP Request header', 'X-Team', 'equals', 'ops', true, 'condition_is_false']],
    });
    // biome-ignore lint/suspicious/noExplicitAny: the envelope is inspected as JSON
    const call = async (team?: string): Promise<any> => {
      const headers = { Authorization: admin, ...(team ? { 'X-Team': team } : {}) };
      return (await fetch(`${s.url}/resolver/`, { headers })).json();
    };
    expect((await call('ops')).result.status).toBe(true);
    expect((await call('dev')).result.error.code).toBe(303);
    expect((await call()).result.error.code).toBe(303);
  });

  it('applies user policies to users acting on themselves; rights follow', async () => {
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    ok(await s.call('GET', '/user/', {}, alice));
    await policy('u-audit', { scope: 'user', action: 'auditlog', realm: 'realm1' });
    expectServiceError(await s.call('GET', '/user/', {}, alice), 303, DENIED_USER('userlist'));
    ok(await s.call('GET', '/audit/', {}, alice));
    const carol = await userToken(s, 'carol', 'carolpw', 'realm2');
    expectServiceError(await s.call('GET', '/audit/', {}, carol), 303, DENIED_USER('auditlog'));
    // Users never get admin-only endpoints, whatever the policies say.
    await policy('u-all', { scope: 'user', action: '*' });
    expect((await s.call('GET', '/resolver/', {}, carol)).status).toBe(401);
    const login = ok(await s.call('POST', '/auth', { username: 'alice@realm1', password: 'alicepw' }));
    expect(login.rights).toEqual(expect.arrayContaining(['auditlog', 'userlist', 'updateuser']));
    await deletePolicy(op, 'u-all');
    const again = ok(await s.call('POST', '/auth', { username: 'alice@realm1', password: 'alicepw' }));
    expect(again.rights).toEqual(['auditlog']);
    expect(again.menus).toEqual(['audit']);
    // userinfo conditions of user policies read the user's attributes.
    await policy('u-mail', {
      scope: 'user',
      action: 'userlist',
      conditions: [['userinfo', 'email', 'matches', '.*@example\\.com', true]],
    });
    ok(await s.call('GET', '/user/', {}, alice));
    const bob = await userToken(s, 'bob', 'bobpw', 'realm1');
    expectServiceError(await s.call('GET', '/user/', {}, bob), 303, DENIED_USER('userlist'));
  });

  it('narrows the audit log: own rows for users, realms, auditlog_age and hidden columns for admins', async () => {
    const at = async (ago: number, fill: Record<string, string>) => {
      const e = newAuditEntry('POST /validate/check', new Date(), '10.1.1.1');
      Object.assign(e, fill);
      const id = await writeAudit(s.rt, e);
      // The row's end time is the clock's; age it directly (its signature no longer matters here).
      const date = new Date(Date.now() - ago * 1000).toISOString();
      await s.rt.store.db.updateTable('audit').set({ date }).where('id', '=', id).execute();
    };
    await at(7200, { user: 'alice', realm: 'realm1', info: 'old' });
    await at(10, { user: 'alice', realm: 'realm1', info: 'new' });
    await at(10, { user: 'carol', realm: 'realm2', info: 'r2' });
    await policy('grant', { scope: 'admin', action: '*', adminuser: 'admin' });
    await policy('audit1', {
      scope: 'admin',
      action: 'auditlog, auditlog_age=1h, hide_audit_columns=client info',
      adminuser: 'admin',
      priority: 1,
    });
    const page = ok(
      await s.call('GET', '/audit/', { action: 'POST /validate/check', page_size: '100' }, admin),
    );
    expect(page.auditcolumns).not.toContain('client');
    expect(page.auditcolumns).not.toContain('info');
    expect(page.auditcolumns).toContain('user');
    expect(page.auditdata.every((e: object) => !('client' in e) && !('info' in e))).toBe(true);
    expect(page.count).toBe(2); // the two-hour-old row is beyond auditlog_age
    // A shorter timelimit still applies; a longer one is capped.
    expect(
      ok(await s.call('GET', '/audit/', { action: 'POST /validate/check', timelimit: '5s' }, admin)).count,
    ).toBe(0);
    expect(
      ok(await s.call('GET', '/audit/', { action: 'POST /validate/check', timelimit: '30d' }, admin)).count,
    ).toBe(2);
    // An auditor restricted to realm1 sees realm1's rows and the rows of his own requests.
    await policy('aud-r1', { scope: 'admin', action: 'auditlog', realm: 'realm1', adminuser: 'auditor' });
    const aud = await auditor();
    ok(await s.call('GET', '/audit/', { realm: 'realm2' }, aud)); // writes an own row
    const seen = ok(await s.call('GET', '/audit/', { page_size: '1000' }, aud)).auditdata as {
      realm: string;
      administrator: string;
    }[];
    expect(seen.some((e) => e.realm === 'realm1')).toBe(true);
    expect(seen.some((e) => e.administrator === 'auditor')).toBe(true);
    expect(seen.every((e) => e.realm === 'realm1' || e.administrator === 'auditor')).toBe(true);
    expect(seen.some((e) => e.realm === 'realm2' && e.administrator !== 'auditor')).toBe(false);
    // The CSV download shows no more than the list, whatever the download policy says.
    await policy('aud-dl', { scope: 'admin', action: 'auditlog_download', adminuser: 'auditor' });
    const csv = await s.call('GET', '/audit/a.csv', {}, aud);
    expect(csv.status).toBe(200);
    const lines = csv.text.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.some((l) => l.includes("'realm2'") && !l.includes("'auditor'"))).toBe(false);
    expect(lines.some((l) => l.includes("'realm1'"))).toBe(true);
  });

  it('enforces set_ and delete_custom_user_attributes', async () => {
    const set = (token: string, key: string, value: string, user = 'alice') =>
      s.call('POST', '/user/attribute', { user, realm: 'realm1', key, value }, token);
    // No admin policy: administrators may set anything.
    ok(await set(admin, 'anything', 'at all'));
    ok(await set(admin, 'constructor', 'fine'));
    expect(ok(await s.call('DELETE', '/user/attribute/constructor/alice/realm1', {}, admin))).toBe(1);
    expect(
      ok(await s.call('GET', '/user/editable_attributes/', { user: 'alice', realm: 'realm1' }, admin)),
    ).toEqual({
      delete: ['*'],
      set: { '*': ['*'] },
    });
    await policy('grant', { scope: 'admin', action: 'userlist', adminuser: 'admin' });
    await policy('attrs', {
      scope: 'admin',
      action:
        'set_custom_user_attributes=:department: sales finance :*: x, delete_custom_user_attributes=department',
      adminuser: 'admin',
    });
    expect(
      ok(await s.call('GET', '/user/editable_attributes/', { user: 'alice', realm: 'realm1' }, admin)),
    ).toEqual({
      delete: ['department'],
      set: { department: ['sales', 'finance'], '*': ['x'] },
    });
    ok(await set(admin, 'department', 'sales'));
    expectServiceError(
      await set(admin, 'department', 'it'),
      303,
      'You are not allowed to set the custom user attribute department!',
    );
    ok(await set(admin, 'room', 'x'));
    expectServiceError(
      await set(admin, 'room', 'y'),
      303,
      'You are not allowed to set the custom user attribute room!',
    );
    expect(ok(await s.call('DELETE', '/user/attribute/department/alice/realm1', {}, admin))).toBe(1);
    expectServiceError(
      await s.call('DELETE', '/user/attribute/room/alice/realm1', {}, admin),
      303,
      'You are not allowed to delete the custom user attribute room!',
    );
    expect(ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1' }, admin))).toEqual({
      anything: 'at all',
      room: 'x',
    });
    // privacyIDEA's compact forms, and every priority contributes.
    await policy('attrs2', {
      scope: 'admin',
      action: 'set_custom_user_attributes=:floor:3',
      adminuser: 'admin',
      priority: 5,
    });
    ok(await set(admin, 'floor', '3'));
    expectServiceError(
      await set(admin, 'floor', '4'),
      303,
      'You are not allowed to set the custom user attribute floor!',
    );
    // Names of object properties are ordinary keys.
    expectServiceError(
      await set(admin, 'constructor', 'y'),
      303,
      'You are not allowed to set the custom user attribute constructor!',
    );
    // Users need a user policy, even while no user policy restricts anything else.
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    expectServiceError(
      await set(alice, 'phone', '123'),
      303,
      'You are not allowed to set the custom user attribute phone!',
    );
    await policy('self', { scope: 'user', action: 'set_custom_user_attributes=:phone: *', realm: 'realm1' });
    ok(await set(alice, 'phone', '123'));
    expect(ok(await s.call('GET', '/user/attribute', { key: 'phone' }, alice))).toBe('123');
    expectServiceError(
      await set(alice, 'room', 'x'),
      303,
      'You are not allowed to set the custom user attribute room!',
    );
  });

  it('applies webui login_mode, jwt_validity and web UI settings at login', async () => {
    await policy('nologin', { scope: 'webui', action: 'login_mode=disable', realm: 'realm2' });
    const r = await s.call('POST', '/auth', { username: 'carol@realm2', password: 'carolpw' });
    expectServiceError(r, 303, 'The login for this user is disabled.');
    // Administrators of the local table are not realm users: login_mode does not apply.
    await policy('nologin', { scope: 'webui', action: 'login_mode=disable' });
    ok(await s.call('POST', '/auth', { username: 'admin', password: s.adminPassword }));
    // privacyIDEA mode checks tokens; a user without tokens cannot log in with the store password.
    await policy('nologin', { scope: 'webui', action: 'login_mode=privacyIDEA', realm: 'realm1' });
    const pi = await s.call('POST', '/auth', { username: 'alice@realm1', password: 'alicepw' });
    expect(pi.status).toBe(401);
    expect(pi.json.result.error.code).toBe(4031);
    await deletePolicy(op, 'nologin');
    await policy('ui', {
      scope: 'webui',
      action: 'jwt_validity=60, logout_time=300, timeout_action=logout, hide_welcome_info, user_page_size=50',
      realm: 'realm1',
    });
    const v = ok(await s.call('POST', '/auth', { username: 'alice@realm1', password: 'alicepw' }));
    const claims = decodeJwt(v.token);
    expect(claims.exp! - claims.iat!).toBe(60);
    expect(v).toMatchObject({
      logout_time: 300,
      timeout_action: 'logout',
      hide_welcome: true,
      user_page_size: 50,
    });
    const other = ok(await s.call('POST', '/auth', { username: 'carol@realm2', password: 'carolpw' }));
    const c2 = decodeJwt(other.token);
    expect(c2.exp! - c2.iat!).toBe(3600);
    expect(other).toMatchObject({ logout_time: 120, timeout_action: 'lockscreen', hide_welcome: false });
    // Conflicting values at the same priority are a policy error.
    await policy('ui2', { scope: 'webui', action: 'jwt_validity=90', realm: 'realm1' });
    expectServiceError(
      await s.call('POST', '/auth', { username: 'alice@realm1', password: 'alicepw' }),
      303,
      /conflicting actions/,
    );
  });

  it('answers GET /auth/rights with the token types the caller may enroll', async () => {
    // The enroll<TYPE> rights are those the token type registry declares.
    const hotp = 'Enroll HOTP: Event based One Time Passwords';
    const totp = 'Enroll TOTP: Time based One Time Passwords';
    const all = ok(await s.call('GET', '/auth/rights', {}, admin));
    expect(Object.keys(all).sort()).toEqual(
      tokenTypes()
        .map((t) => t.type)
        .sort(),
    );
    expect(Object.keys(all)).toEqual(expect.arrayContaining(['hotp', 'pw', 'registration', 'spass', 'totp']));
    expect(all).toMatchObject({ hotp, totp });
    await policy('enroll', { scope: 'admin', action: 'enrollTOTP', adminuser: 'admin' });
    expect(ok(await s.call('GET', '/auth/rights', {}, admin))).toEqual({ totp });
    await policy('u-enroll', { scope: 'user', action: 'enrollHOTP', realm: 'realm1' });
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    expect(ok(await s.call('GET', '/auth/rights', {}, alice))).toEqual({ hotp });
  });

  it('takes policy values sent as JSON without failing the check', async () => {
    await policy('grant', { scope: 'admin', action: '*', adminuser: 'admin' });
    ok(
      await jsonCall(
        s,
        'POST',
        '/policy/j1',
        { scope: 'admin', action: { tokenlist: true }, realm: ['realm1'] },
        admin,
      ),
    );
    expect((await getPolicies(s.rt)).j1?.realm).toEqual(['realm1']);
  });
});

describe.each(testDialects())('compiled policies shared by two nodes on %s', (dialect) => {
  it('sees a change made by another node at the next decision', async () => {
    const a = await openTestRuntime(dialect);
    // A second node: its own connection pool (and cache) on the same database.
    const { openRuntime } = await import('../../src/core/runtime.ts');
    const pino = (await import('pino')).default;
    const b = await openRuntime(a.rt.config, { logger: pino({ level: 'silent' }) });
    try {
      expect((await compiledPolicies(b)).hasActive('admin')).toBe(false);
      const first = await compiledPolicies(b);
      expect(await compiledPolicies(b)).toBe(first); // unchanged counter: the compiled set is reused
      await setPolicy(a.ctx, 'p1', { scope: 'admin', action: 'policyread' });
      const after = await compiledPolicies(b);
      expect(after.hasActive('admin')).toBe(true);
      await setPolicy(a.ctx, 'p1', { scope: 'admin', action: 'policyread', active: false });
      expect((await compiledPolicies(b)).hasActive('admin')).toBe(false);
      await deletePolicy(a.ctx, 'p1');
      expect((await compiledPolicies(b)).policies).toHaveLength(0);
    } finally {
      await b.store.close();
      await a.close();
    }
  });
});
