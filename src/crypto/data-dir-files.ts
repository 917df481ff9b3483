// Creates and reads the secret files of the data directory. They are created with mode 0600 in a
// 0700 directory. A file only ever appears complete: it is written under a temporary name first
// and then linked (create) or renamed (replace) into place, so two processes starting at once
// (server and CLI) never overwrite each other's key nor read a half-written one, and a crash
// while a key is being replaced leaves the old key or the new one, never neither.
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export function ensureDataDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (!statSync(dir).isDirectory()) throw new Error(`Data directory ${dir} is not a directory`);
}

function writeTemp(dir: string, name: string, content: string | Buffer): string {
  const temp = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  // writeFileSync's mode only applies to a new file; 'wx' guarantees it is new.
  writeFileSync(temp, content, { mode: 0o600, flag: 'wx' });
  return temp;
}

/** Returns the file's contents, creating it with `make()` first if it does not exist. */
export function readOrCreateSecret(dir: string, name: string, make: () => string | Buffer): Buffer {
  const path = join(dir, name);
  if (!existsSync(path)) {
    const content = make();
    const temp = writeTemp(dir, name, content);
    try {
      linkSync(temp, path); // fails with EEXIST if another process got there first: use theirs
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS') {
        createDirectly(path, content); // a file system without hard links
      } else if (code !== 'EEXIST') {
        throw e;
      }
    } finally {
      rmSync(temp, { force: true });
    }
  }
  return readFileSync(path);
}

function createDirectly(path: string, content: string | Buffer): void {
  try {
    writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** Replaces a secret file's contents atomically, keeping it private. */
export function rewriteSecret(dir: string, name: string, content: string): void {
  const temp = writeTemp(dir, name, content);
  try {
    renameSync(temp, join(dir, name));
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}
