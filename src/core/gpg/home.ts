// The public keys of the configured GnuPG home (config security.gnupg_home, privacyIDEA's
// PI_GNUPG_HOME), read with Debian's gpg: GnuPG 2.1 and later keep them in a keybox file
// (pubring.kbx) that no JavaScript library reads.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { ConfigAdminError } from '../../errors.ts';
import type { Context } from '../context.ts';

const run = promisify(execFile);

export interface GpgKey {
  armor: string;
  fingerprint: string;
}

/** The public keys of the GnuPG home, keyed by long key id; empty when none is set or it is missing. */
export async function homeKeys(ctx: Context): Promise<Record<string, GpgKey>> {
  const home = ctx.config.security.gnupgHome;
  if (home === '' || !existsSync(home)) return {};
  const gpg = async (...args: string[]) => {
    try {
      return (await run('gpg', ['--homedir', home, '--batch', '--no-tty', ...args], { maxBuffer: 16 << 20 }))
        .stdout;
    } catch (e) {
      throw new ConfigAdminError(
        `Cannot read the GnuPG keys in ${home}: ${(e as Error).message.split('\n')[0]}`,
      );
    }
  };
  const listing = await gpg('--with-colons', '--fingerprint', '--list-keys');
  const out: Record<string, GpgKey> = {};
  let keyid: string | undefined;
  for (const line of listing.split('\n')) {
    const f = line.split(':');
    if (f[0] === 'pub') keyid = f[4];
    else if (f[0] === 'fpr' && keyid && f[9]) {
      out[keyid] = { fingerprint: f[9], armor: await gpg('--armor', '--export', f[9]) };
      keyid = undefined;
    }
  }
  return out;
}
