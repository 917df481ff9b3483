// The ssh application (privacyidea/lib/applications/ssh.py): sshkey tokens attached to a machine,
// or to any machine for a service ID, give their public key to OpenSSH's AuthorizedKeysCommand.
import type { AttachedToken, ItemFilter, MachineApplication } from './application.ts';

export const sshApplication: MachineApplication = {
  name: 'ssh',
  tokenTypes: ['sshkey'],
  machineOptional: true,
  options: {
    sshkey: {
      user: { type: 'str', description: 'The username on the SSH server.' },
      service_id: { type: 'str', description: 'The service ID of the SSH server.' },
    },
  },

  lookup(filter: ItemFilter) {
    return filter.service_id ? { byOption: 'service_id' } : {};
  },

  /**
   * An active sshkey token's public key, with its options and its owner's login: only when the
   * request names no `user`, or the one of the attachment's `user` option.
   */
  authItem(token: AttachedToken, filter: ItemFilter) {
    if (token.type !== 'sshkey' || !token.active) return undefined;
    if (filter.user && filter.user !== token.options.user) return undefined;
    const sshkey = token.info.sshkey;
    if (!sshkey) return undefined;
    return {
      ...token.options,
      sshkey,
      ...(token.username !== undefined ? { username: token.username } : {}),
    };
  },
};
