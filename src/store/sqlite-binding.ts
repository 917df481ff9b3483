// Where better-sqlite3 finds its native addon when authsrv runs as a single executable.
//
// A SEA has no node_modules beside it, so the build embeds the addon as a SEA asset. The OS can
// only dlopen() a real file, so we write the asset to a per-user cache file named by its SHA-256
// (a new authsrv build with another addon gets another file; the same build reuses its file).

import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRawAsset, isSea } from 'node:sea';

/** Asset key of the addon in the SEA; scripts/build-binary.ts embeds the prebuild under this key. */
export const SQLITE_ADDON_ASSET = 'better_sqlite3.node';

/** Path for better-sqlite3's `nativeBinding` option, or undefined when not running as a SEA. */
export function sqliteNativeBinding(): string | undefined {
  if (!isSea()) return undefined;
  // getRawAsset maps the bytes in the executable without copying; we only read them.
  const addon = new Uint8Array(getRawAsset(SQLITE_ADDON_ASSET));
  const hash = createHash('sha256').update(addon).digest('hex');
  const errors: string[] = [];
  for (const dir of cacheDirs()) {
    try {
      return materialize(dir, `better_sqlite3-${hash}.node`, addon, hash);
    } catch (err) {
      errors.push(`${dir}: ${(err as Error).message}`);
    }
  }
  throw new Error(`cannot write the SQLite addon to a cache directory (${errors.join('; ')})`);
}

function cacheDirs(): string[] {
  const dirs: string[] = [];
  // The XDG spec says relative values must be ignored.
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg?.startsWith('/')) dirs.push(join(xdg, 'authsrv'));
  else dirs.push(join(homedir(), '.cache', 'authsrv'));
  // For service accounts without a writable home.
  dirs.push(join(tmpdir(), `authsrv-${process.getuid?.() ?? 'user'}`));
  return dirs;
}

function materialize(dir: string, name: string, addon: Uint8Array, hash: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // We will execute code from this directory: in a shared place like /tmp another user could have
  // created it first and planted a file, so it must be ours and writable by nobody else.
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error('not a directory');
  if (process.getuid && st.uid !== process.getuid()) throw new Error('owned by another user');
  if (st.mode & 0o022) throw new Error('writable by group or others');

  const file = join(dir, name);
  try {
    if (createHash('sha256').update(readFileSync(file)).digest('hex') === hash) return file;
  } catch {
    // missing or unreadable: (re)write it below
  }
  // Temp file + rename: concurrent starts never load a half-written addon.
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(temp, addon, { mode: 0o755, flag: 'wx' });
    chmodSync(temp, 0o755); // the umask may have narrowed the mode
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return file;
}
