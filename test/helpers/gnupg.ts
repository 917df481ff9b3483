// A GnuPG home of Debian's gpg in a temporary directory, for the tests of GnuPG keys and
// PGP-encrypted token files: keys made with --quick-gen-key, exported armored, and files encrypted
// to them with `gpg --encrypt --armor -r`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GnupgHome {
  home: string;
  /**
   * Makes a key for `uid` (passphrase '' = none; `algo` and `usage` as --quick-gen-key takes them,
   * 'default' = a primary key with an encryption subkey) and returns its long key id and fingerprint.
   */
  generate(
    uid: string,
    passphrase?: string,
    algo?: string,
    usage?: string,
  ): { keyid: string; fingerprint: string };
  /** The armored public key of `uid`. */
  exportPublic(uid: string): string;
  /** The armored private key of `uid` (exported with its passphrase, if it has one). */
  exportSecret(uid: string, passphrase?: string): string;
  /** `text` encrypted to `uid` as an ASCII-armored PGP message (`hidden`: --throw-keyids). */
  encrypt(text: string, uid: string, hidden?: boolean): string;
  close(): void;
}

export function gnupgHome(): GnupgHome {
  const home = mkdtempSync(join(tmpdir(), 'authsrv-gnupg-'));
  const gpg = (args: string[], input?: string) =>
    execFileSync('gpg', ['--homedir', home, '--batch', '--no-tty', ...args], {
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
  return {
    home,
    generate(uid, passphrase = '', algo = 'default', usage = 'default') {
      gpg([
        '--pinentry-mode',
        'loopback',
        '--passphrase',
        passphrase,
        '--quick-gen-key',
        uid,
        algo,
        usage,
        'never',
      ]);
      const lines = gpg(['--with-colons', '--fingerprint', '--list-keys', uid])
        .split('\n')
        .map((l) => l.split(':'));
      return {
        keyid: lines.find((f) => f[0] === 'pub')![4]!,
        fingerprint: lines.find((f) => f[0] === 'fpr')![9]!,
      };
    },
    exportPublic(uid) {
      return gpg(['--armor', '--export', uid]);
    },
    exportSecret(uid, passphrase = '') {
      return gpg([
        '--pinentry-mode',
        'loopback',
        '--passphrase',
        passphrase,
        '--armor',
        '--export-secret-keys',
        uid,
      ]);
    },
    encrypt(text, uid, hidden = false) {
      const extra = hidden ? ['--throw-keyids'] : [];
      return gpg(['--trust-model', 'always', ...extra, '--encrypt', '--armor', '-r', uid], text);
    },
    close() {
      try {
        execFileSync('gpgconf', ['--homedir', home, '--kill', 'all'], { stdio: 'ignore' });
      } catch {
        // no agent was started
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
