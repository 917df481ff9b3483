// installationStatus: realms with their user counts (a resolver that cannot be read named, not
// fatal), tokens, administrators, and the next step of a new installation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAdmin } from '../../../src/core/auth/index.ts';
import { setRealm } from '../../../src/core/realm/index.ts';
import { saveResolver } from '../../../src/core/resolver/index.ts';
import { installationStatus } from '../../../src/core/status/index.ts';
import { initToken } from '../../../src/core/token/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

describe.each(testDialects())('installationStatus on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  it('counts nothing on a new installation and suggests the setup', async () => {
    expect(await installationStatus(t.ctx)).toEqual({
      realms: [],
      tokens: 0,
      administrators: 0,
      next: {
        why: 'no realm yet: a realm is where authsrv finds the users who log in',
        command: 'authsrv setup',
      },
    });
  });

  it('counts the users of each realm and suggests a token for the default realm', async () => {
    const users = [1, 2, 3].map((i) => ({ login: `u${i}`, uid: 1000 + i }));
    await saveResolver(t.ctx, 'staff', {
      type: 'passwdresolver',
      Filename: await writePasswdFile(t.dataDir, 'staff', users),
    });
    await saveResolver(t.ctx, 'ops', {
      type: 'passwdresolver',
      Filename: await writePasswdFile(t.dataDir, 'ops', users.slice(0, 1)),
    });
    await setRealm(t.ctx, 'corp', ['staff'], {});
    await setRealm(t.ctx, 'admins', ['ops'], {});
    await addAdmin(t.ctx, 'root', 'a-long-password-1');
    const s = await installationStatus(t.ctx);
    expect(s.realms).toEqual([
      { name: 'admins', default: false, users: 1 },
      { name: 'corp', default: true, users: 3 },
    ]);
    expect(s).toMatchObject({ tokens: 0, administrators: 1 });
    expect(s.next).toEqual({
      why: 'no token yet: enroll one for a user of realm corp and scan its QR code',
      command: 'authsrv token init --type totp --user USER@corp',
    });
  });

  it('counts tokens, has no next step once one exists, and names a realm whose users cannot be read', async () => {
    await initToken(t.ctx, { type: 'totp', genkey: '1', user: 'u1', realm: 'corp' });
    await initToken(t.ctx, { type: 'hotp', genkey: '1' });
    // A directory that does not answer (nothing listens on port 9).
    await saveResolver(t.ctx, 'gone', {
      type: 'ldapresolver',
      LDAPURI: 'ldap://127.0.0.1:9',
      LDAPBASE: 'dc=example,dc=org',
      TIMEOUT: '2',
    });
    await setRealm(t.ctx, 'remote', ['gone'], {});
    const s = await installationStatus(t.ctx);
    expect(s.tokens).toBe(2);
    expect(s.next).toBeUndefined();
    const remote = s.realms.find((r) => r.name === 'remote')!;
    expect(remote.users).toBeNull();
    expect(remote.error).toMatch(/\S/);
    expect(s.realms.find((r) => r.name === 'admins')!.users).toBe(1);
    expect(s.realms.find((r) => r.name === 'corp')!.users).toBe(3);
  });
});
