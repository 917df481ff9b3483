// The ssh application: the items of active sshkey tokens, with the attachment's options and the
// owner's login, only for no `user` filter or the attachment's `user`; the lookup by service_id.
import { describe, expect, it } from 'vitest';
import type { AttachedToken } from '../../src/applications/index.ts';
import { sshApplication } from '../../src/applications/ssh.ts';

const token = (over: Partial<AttachedToken> = {}): AttachedToken => ({
  serial: 'SSHK1',
  type: 'sshkey',
  active: true,
  info: { sshkey: 'ssh-ed25519 AAAA k' },
  username: 'alice',
  options: { user: 'root' },
  hmacResponse: () => undefined,
  ...over,
});

describe('ssh application', () => {
  it('gives the key, the options and the owner of an active sshkey token', () => {
    expect(sshApplication.authItem(token(), {})).toEqual({
      sshkey: 'ssh-ed25519 AAAA k',
      username: 'alice',
      user: 'root',
    });
    expect(sshApplication.authItem(token({ username: undefined }), { user: 'root' })).toEqual({
      sshkey: 'ssh-ed25519 AAAA k',
      user: 'root',
    });
  });

  it('gives nothing for another user, an inactive token, another type or no key', () => {
    expect(sshApplication.authItem(token(), { user: 'admin' })).toBeUndefined();
    expect(sshApplication.authItem(token({ options: {} }), { user: 'root' })).toBeUndefined();
    expect(sshApplication.authItem(token({ active: false }), {})).toBeUndefined();
    expect(sshApplication.authItem(token({ type: 'hotp' }), {})).toBeUndefined();
    expect(sshApplication.authItem(token({ info: {} }), {})).toBeUndefined();
  });

  it('looks attachments up by service_id when the request names one, else by host', () => {
    expect(sshApplication.lookup({ service_id: 'mail' })).toEqual({ byOption: 'service_id' });
    expect(sshApplication.lookup({ user: 'root' })).toEqual({});
    expect(sshApplication.tokenTypes).toEqual(['sshkey']);
    expect(sshApplication.machineOptional).toBe(true);
  });
});
