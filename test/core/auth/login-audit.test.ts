// The audit columns of /auth (issue 16 item 10): only a login that issued a token is a success; a
// challenge or a failure names the user and realm it tried, so that auth_max_fail counts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HiddenLoginError } from '../../../src/core/auth/enumeration.ts';
import { failedLoginColumns, type LoginResult, loginColumns } from '../../../src/core/auth/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('the audit columns of a login on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  const attempt = { username: 'alice@r1', realm: 'r1' };
  const loggedIn = (role: 'admin' | 'user', realm: string): LoginResult => ({
    caller: { role, username: 'alice', realm, authtype: 'password', client: '192.0.2.1' },
    token: 'jwt',
    rights: [],
    menus: [],
    settings: {},
  });

  it('names an administrator (no user, the realm it logged in with) or a realm user, as a success', async () => {
    expect(await loginColumns(t.rt, attempt, loggedIn('admin', 'super'))).toEqual({
      administrator: 'alice',
      user: '',
      realm: 'super',
      authentication: 'ACCEPT',
      success: true,
    });
    expect(await loginColumns(t.rt, attempt, loggedIn('user', 'r1'))).toEqual({
      user: 'alice',
      realm: 'r1',
      authentication: 'ACCEPT',
      success: true,
    });
  });

  it('answers CHALLENGE for a login that asked for challenges, REJECT for a failed one: no success', async () => {
    expect(await loginColumns(t.rt, attempt, { challenge: { multi_challenge: [] } })).toEqual({
      user: 'alice@r1',
      realm: 'r1',
      authentication: 'CHALLENGE',
      success: false,
    });
    expect(await failedLoginColumns(t.rt, { username: 'alice', realm: 'r1' })).toEqual({
      user: 'alice',
      realm: 'r1',
      authentication: 'REJECT',
      success: false,
    });
    expect(await failedLoginColumns(t.rt, { username: undefined, realm: undefined })).toEqual({
      authentication: 'REJECT',
      success: false,
    });
  });

  it('records the real reason of a failure answered generically (hide_specific_error_message)', async () => {
    const hidden = new HiddenLoginError('Authentication failure. Unknown realm: nowhere.');
    expect(await failedLoginColumns(t.rt, { username: 'alice', realm: 'r1' }, hidden)).toEqual({
      user: 'alice',
      realm: 'r1',
      info: 'Authentication failure. Unknown realm: nowhere.',
      authentication: 'REJECT',
      success: false,
    });
    // Any other failure's info is its message, which the last pipeline step writes.
    const plain = await failedLoginColumns(t.rt, { username: 'alice', realm: 'r1' }, new Error('x'));
    expect(plain).not.toHaveProperty('info');
  });
});
