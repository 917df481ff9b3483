// Creates and reads the secret files of the data directory. They are created with mode 0600 in a
// 0700 directory and with O_EXCL, so two processes starting at once (server and CLI) never
// overwrite each other's key: the loser of the race reads what the winner wrote.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function ensureDataDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (!statSync(dir).isDirectory()) throw new Error(`Data directory ${dir} is not a directory`);
}

/** Returns the file's contents, creating it with `make()` first if it does not exist. */
export function readOrCreateSecret(dir: string, name: string, make: () => string | Buffer): Buffer {
  const path = join(dir, name);
  if (!existsSync(path)) {
    try {
      writeFileSync(path, make(), { mode: 0o600, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  return readFileSync(path);
}

/** Replaces a secret file's contents, keeping it private. */
export function rewriteSecret(dir: string, name: string, content: string): void {
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600);
}
