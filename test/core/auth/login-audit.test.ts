import { describe, expect, it } from 'vitest';
import { FAILED_LOGIN_COLUMNS, type LoginResult, loginColumns } from '../../../src/core/auth/index.ts';

describe('loginColumns', () => {
  const loggedIn = (role: 'admin' | 'user', realm: string): LoginResult => ({
    caller: { role, username: 'alice', realm, authtype: 'password', client: '192.0.2.1' },
    token: 'jwt',
    rights: [],
    menus: [],
    settings: {},
  });

  it('names an administrator (no user, the realm it logged in with) or a realm user', () => {
    expect(loginColumns(loggedIn('admin', 'super'))).toEqual({
      administrator: 'alice',
      user: '',
      realm: 'super',
    });
    expect(loginColumns(loggedIn('user', 'r1'))).toEqual({ user: 'alice', realm: 'r1' });
  });

  it('answers CHALLENGE for a login that asked for challenges, REJECT for a failed one', () => {
    expect(loginColumns({ challenge: { multi_challenge: [] } })).toEqual({ authentication: 'CHALLENGE' });
    expect(FAILED_LOGIN_COLUMNS).toEqual({ authentication: 'REJECT' });
  });
});
