import { describe, expect, it } from 'vitest';
import { callerColumns } from '../../../src/core/audit/index.ts';

describe('callerColumns', () => {
  it('names an administrator as the administrator, a realm user as user and realm', () => {
    const admin = {
      role: 'admin',
      username: 'boss',
      realm: 'super',
      authtype: 'password',
      client: '',
    } as const;
    expect(callerColumns(admin)).toEqual({ administrator: 'boss' });
    const user = { role: 'user', username: 'alice', realm: 'r1', authtype: 'password', client: '' } as const;
    expect(callerColumns(user)).toEqual({ user: 'alice', realm: 'r1' });
  });
});
