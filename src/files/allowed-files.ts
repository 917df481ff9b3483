// The one rule for files the server opens because a setting names them (a passwd resolver's
// Filename, an LDAP TLS_CA_FILE, an SQLite user database …): the path must resolve, symbolic links
// and `..` followed, inside an allowed directory; it must be a regular file, none of the server's
// own files (keys, database, configuration), and no larger than the limit. Everything else is a
// ParameterError that names the setting and the broken rule. The rule is applied when the setting
// is saved and again every time the file is opened, because the file may have been replaced by a
// symbolic link or a device, or have grown, since.
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { ParameterError } from '../errors.ts';

export interface FileRule {
  /** Directories whose files (at any depth) may be opened; an entry naming a file allows that file. */
  allowedDirs: readonly string[];
  /** The server's own files: never opened on a setting's say-so, wherever they are. */
  ownFiles: readonly string[];
  /** The largest file that is read whole, in bytes. */
  maxBytes: number;
  /** Where the limit is set, named in the error of a file beyond it. */
  maxBytesSetting?: string;
}

/** A file opened under the rule: its real path and stat, read at most once, then closed. */
export interface AllowedFile {
  realPath: string;
  stats: Stats;
  /** The whole file; more than the limit (a file still growing) is an error. */
  read(): Buffer;
  close(): void;
}

/**
 * Opened without following a symbolic link in the last step (the path is already resolved, so a
 * link there is one swapped in since) and without blocking on a FIFO, whose fstat then refuses it.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const CHUNK_BYTES = 64 * 1024;

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? String(e);

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** The absolute form of a path without resolving `..` by text (a link before it decides where it goes). */
function absolute(path: string): string {
  return isAbsolute(path) ? path : `${process.cwd()}${sep}${path}`;
}

export class AllowedFiles {
  readonly maxBytes: number;
  readonly #rule: FileRule;

  constructor(rule: FileRule) {
    this.#rule = rule;
    this.maxBytes = rule.maxBytes;
  }

  /**
   * Checks a setting's path when it is saved. A file that does not exist yet is accepted if it
   * would be inside an allowed directory: it is checked again when it is opened.
   */
  checkSetting(path: string, setting: string): void {
    const { real, error } = this.#locate(path, setting);
    const stats = error === undefined ? tryStat(real) : undefined;
    // Not there (yet), or not reachable: opening it will tell.
    if (stats !== undefined) this.#checkStats(stats, path, setting);
  }

  /**
   * The real path of a file that a library opens itself (an SQLite database): opening that path,
   * not the given one, keeps a link swapped in afterwards from redirecting it. No size limit: such a
   * file is not read whole. Undefined when there is no such file: the caller says what that means.
   */
  realPath(path: string, setting: string): string | undefined {
    const { real, error } = this.#locate(path, setting);
    if (error !== undefined) {
      if (isMissing(error)) return undefined;
      throw unreadable(path, setting, error);
    }
    let stats: Stats;
    try {
      stats = statSync(real);
    } catch (e) {
      throw unreadable(path, setting, e);
    }
    this.#checkStats(stats, path, setting, false);
    return real;
  }

  /** Opens a file for reading under the rule; the caller closes it. */
  open(path: string, setting: string): AllowedFile {
    const { real, error } = this.#locate(path, setting);
    if (error !== undefined) throw unreadable(path, setting, error);
    let fd: number;
    try {
      fd = openSync(real, OPEN_FLAGS);
    } catch (e) {
      throw unreadable(path, setting, e);
    }
    try {
      const stats = fstatSync(fd);
      this.#checkStats(stats, path, setting);
      // A directory of the path may have been swapped for a link since realpath: the kernel knows
      // where the opened file really is.
      if (!this.#allowed(pathOfDescriptor(fd, real))) throw this.#outside(path, setting);
      return {
        realPath: real,
        stats,
        read: () => readLimited(fd, this.maxBytes, () => this.#tooLarge(path, setting)),
        close: () => closeSync(fd),
      };
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  /** The whole file, read under the rule. */
  read(path: string, setting: string): Buffer {
    const file = this.open(path, setting);
    try {
      return file.read();
    } finally {
      file.close();
    }
  }

  /**
   * Where a path leads, which must be inside an allowed directory: its real path, or where it would
   * be with the reason it cannot be resolved. Outside is refused before anything else is said, so
   * that no answer tells whether a file outside exists.
   */
  #locate(path: string, setting: string): { real: string; error?: unknown } {
    if (path === '') throw new ParameterError(`${setting}: no file name given`);
    if (path.includes('\u0000'))
      throw new ParameterError(`${setting}: the file name contains a NUL character`);
    let located: { real: string; error?: unknown };
    try {
      located = { real: realpathSync(path) };
    } catch (error) {
      located = { real: realPathOfMissing(absolute(path)), error };
    }
    if (!this.#allowed(located.real)) throw this.#outside(path, setting);
    return located;
  }

  #allowed(real: string): boolean {
    // An allowed directory that does not exist (yet) is where it would be, like a missing file.
    return this.#rule.allowedDirs.some((dir) => within(real, realPathOfMissing(absolute(dir))));
  }

  #checkStats(stats: Stats, path: string, setting: string, limited = true): void {
    if (!stats.isFile()) throw new ParameterError(`${setting}: ${path} is not a regular file`);
    if (this.#isOwn(stats)) {
      throw new ParameterError(
        `${setting}: ${path} is one of the server's own files (keys, database, configuration)`,
      );
    }
    if (limited && stats.size > this.maxBytes) throw this.#tooLarge(path, setting);
  }

  /** Compared by device and inode, so that a hard link or another spelling is the same file. */
  #isOwn(stats: Stats): boolean {
    return this.#rule.ownFiles.some((own) => {
      const o = tryStat(own);
      return o !== undefined && o.dev === stats.dev && o.ino === stats.ino;
    });
  }

  #outside(path: string, setting: string): ParameterError {
    return new ParameterError(
      `${setting}: ${path} is not in a directory allowed for the server's files (files.allowed_dirs in the configuration file; an entry may also name one file)`,
    );
  }

  #tooLarge(path: string, setting: string): ParameterError {
    const where = this.#rule.maxBytesSetting === undefined ? '' : ` (${this.#rule.maxBytesSetting})`;
    return new ParameterError(`${setting}: ${path} is larger than ${this.maxBytes} bytes${where}`);
  }
}

/** The stat of a file, or undefined when there is none or it cannot be reached. */
function tryStat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function tryRealPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

const isMissing = (e: unknown) => ['ENOENT', 'ENOTDIR'].includes(errnoOf(e));

function unreadable(path: string, setting: string, e: unknown): ParameterError {
  if (isMissing(e)) return new ParameterError(`${setting}: ${path} does not exist`);
  return new ParameterError(`${setting}: cannot read ${path} (${errnoOf(e)})`);
}

/**
 * Where a path that does not exist yet would be: the real path of its nearest existing ancestor with
 * the rest appended (the rest holds no link, since none of it exists).
 */
function realPathOfMissing(path: string): string {
  const rest: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    const real = tryRealPath(at);
    if (real !== undefined) return join(real, ...rest.reverse());
    if (dirname(at) === at) return join(at, ...rest.reverse());
    rest.push(basename(at));
  }
}

/** Where the kernel says an open file is (Linux); the resolved path where it cannot say. */
function pathOfDescriptor(fd: number, fallback: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return fallback;
  }
}

/** Reads to the end, failing as soon as more than `maxBytes` came (/proc files report size 0). */
function readLimited(fd: number, maxBytes: number, tooLarge: () => Error): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) return Buffer.concat(chunks, total);
    chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    total += n;
    if (total > maxBytes) throw tooLarge();
  }
}

/**
 * A file the operator named in the configuration file (a key password file, a TLS certificate):
 * no directory rule, since the operator also writes files.allowed_dirs, but it must be a regular
 * file of at most `maxBytes`, so that a mistake (a directory, /dev/zero) is a clear error.
 */
export function readRegularFile(path: string, setting: string, maxBytes: number): Buffer {
  const files = new AllowedFiles({ allowedDirs: [sep], ownFiles: [], maxBytes });
  return files.read(path, setting);
}
