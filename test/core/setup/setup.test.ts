// The steps of `authsrv setup` on every dialect: the user store tested live before anything is
// stored (a passwd file, the slapd fixture, an unreachable directory), the realm, the admin
// policy, the operator's TOTP token, a test login with its current value, and the client lines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE_DN,
  PEOPLE_DN,
  READER_DN,
  READER_PASSWORD,
  type SlapdFixture,
  startSlapd,
} from '../../../scripts/fixtures/slapd.ts';
import { getPolicies } from '../../../src/core/policy/index.ts';
import { listRealms } from '../../../src/core/realm/index.ts';
import { listResolvers } from '../../../src/core/resolver/index.ts';
import {
  checkUserSource,
  clientSnippets,
  createAdminPolicy,
  createRealm,
  enrollOperatorToken,
  resolverParams,
  testLogin,
} from '../../../src/core/setup/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { hotp } from '../../helpers/otp.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';

let slapd: SlapdFixture;
beforeAll(async () => {
  slapd = await startSlapd();
});
afterAll(async () => slapd?.stop());

describe('resolverParams and clientSnippets', () => {
  it('map a passwd file and an LDAP directory to resolver settings', () => {
    expect(resolverParams({ kind: 'passwd', file: '/etc/authsrv/users' })).toEqual({
      type: 'passwdresolver',
      Filename: '/etc/authsrv/users',
    });
    expect(resolverParams({ kind: 'ldap', uri: 'ldap://dc', base: BASE_DN })).toEqual({
      type: 'ldapresolver',
      LDAPURI: 'ldap://dc',
      LDAPBASE: BASE_DN,
      LOGINNAMEATTRIBUTE: 'uid',
    });
    expect(
      resolverParams({
        kind: 'ldap',
        uri: 'ldaps://dc',
        base: BASE_DN,
        binddn: READER_DN,
        bindpw: 'pw',
        loginattr: 'sAMAccountName',
      }),
    ).toMatchObject({ BINDDN: READER_DN, BINDPW: 'pw', LOGINNAMEATTRIBUTE: 'sAMAccountName' });
  });

  it('point privacyIDEA FreeRADIUS plugin and PAM module at the server and realm', () => {
    const s = clientSnippets('https://mfa.example.org:5000/', 'corp');
    expect(s.freeradius.split('\n')).toEqual([
      '# /etc/privacyidea/rlm_perl.ini (privacyIDEA FreeRADIUS plugin, privacyidea_radius.pm)',
      '[Default]',
      'URL = https://mfa.example.org:5000/validate/check',
      'REALM = corp',
      'SSL_CHECK = true',
      'TIMEOUT = 10',
    ]);
    expect(s.pam).toContain(
      'auth requisite pam_python.so /lib/security/privacyidea_pam.py url=https://mfa.example.org:5000 realm=corp',
    );
    expect(clientSnippets('http://127.0.0.1:5000', 'corp').freeradius).toContain('SSL_CHECK = false');
  });
});

describe.each(testDialects())('authsrv setup steps on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect, { now: new Date() });
  });
  afterAll(async () => t?.close());

  it('tests a user store live and refuses one that does not work, storing nothing', async () => {
    const file = await writePasswdFile(t.dataDir, 'users', [{ login: 'alice', uid: 1001 }]);
    expect(await checkUserSource(t.ctx, { kind: 'passwd', file })).toMatch(/1 user/);
    await expect(checkUserSource(t.ctx, { kind: 'passwd', file: `${t.dataDir}/missing` })).rejects.toThrow(
      /^The user store does not work: /,
    );
    const ldap = { kind: 'ldap', uri: slapd.url, base: PEOPLE_DN, binddn: READER_DN } as const;
    expect(await checkUserSource(t.ctx, { ...ldap, bindpw: READER_PASSWORD })).toMatch(/\d+ users?/);
    await expect(checkUserSource(t.ctx, { ...ldap, bindpw: 'wrong' })).rejects.toThrow(/does not work/);
    await expect(
      checkUserSource(t.ctx, { ...ldap, bindpw: READER_PASSWORD, uri: 'ldap://127.0.0.1:9' }),
    ).rejects.toThrow(/does not work/);
    expect(await listResolvers(t.ctx)).toEqual({});
  });

  it('creates the realm (the default), the admin policy, the token, and accepts a login with its value', async () => {
    const file = await writePasswdFile(t.dataDir, 'staff', [{ login: 'alice', uid: 1001 }]);
    await createRealm(t.ctx, 'corp', 'corp-users', { kind: 'passwd', file });
    expect((await listRealms(t.rt)).corp).toMatchObject({ default: true });

    await createAdminPolicy(t.ctx, 'setup-admin', 'admin');
    const policy = (await getPolicies(t.ctx, { name: 'setup-admin' }))['setup-admin'];
    expect(policy).toMatchObject({
      scope: 'admin',
      action: { '*': true },
      adminuser: ['admin'],
      active: true,
    });

    const token = await enrollOperatorToken(t.ctx, {
      user: 'alice',
      realm: 'corp',
      pin: '4711',
      otpkey: KEY,
    });
    expect(token.otpauthUri).toMatch(/^otpauth:\/\/totp\/.*secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&/);
    const step = Math.floor(Date.now() / 30_000);
    const refused = await testLogin(t.ctx, { user: 'alice', realm: 'corp', pass: `0000${hotp(KEY, step)}` });
    expect(refused.value).toBe(false);
    const accepted = await testLogin(t.ctx, { user: 'alice', realm: 'corp', pass: `4711${hotp(KEY, step)}` });
    expect(accepted.value).toBe(true);
  });
});
