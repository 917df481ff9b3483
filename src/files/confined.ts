// Files of one configured directory that a setting or an option names by a relative name (an SMS
// gateway's script, an event handler's script, a notification file): the name must stay inside
// the directory — not empty, not absolute, no `..`, no NUL — and, symbolic links followed, the
// file it reaches must still be inside. The checks run every time the file is used, because the
// directory's content may have changed since the name was saved.
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readdirSync,
  realpathSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { ParameterError } from '../errors.ts';

/** A file of the directory that cannot be used (missing, outside, not executable …). */
export class ConfinedFileError extends Error {}

/**
 * The name, when it cannot leave the directory by its spelling; else a ParameterError
 * `<label>: '<name>' must name a file inside <place>, …`.
 */
export function nameInside(name: string | undefined, label: string, place: string): string {
  const n = name ?? '';
  if (n === '' || n.includes('\u0000') || isAbsolute(n) || n.split(/[\\/]/).includes('..')) {
    throw new ParameterError(
      `${label}: '${n}' must name a file inside ${place}, without '..' or an absolute path`,
    );
  }
  return n;
}

/** Whether a real path lies inside a real directory. */
export function isInside(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

function realDirectory(dir: string, noun: string, name: string): string {
  try {
    return realpathSync(dir);
  } catch (e) {
    throw new ConfinedFileError(
      `${noun} ${name} does not exist in ${dir} (${(e as NodeJS.ErrnoException).code})`,
    );
  }
}

/**
 * The real path of an executable regular file of the directory (`noun` names it in errors, e.g.
 * "the script"); a ConfinedFileError when it is missing, leads out, or is no executable file.
 */
export function executableInside(dir: string, name: string, noun: string): string {
  const root = realDirectory(dir, noun, name);
  let real: string;
  try {
    real = realpathSync(join(root, name));
  } catch (e) {
    throw new ConfinedFileError(
      `${noun} ${name} does not exist in ${dir} (${(e as NodeJS.ErrnoException).code})`,
    );
  }
  if (!isInside(real, root)) throw new ConfinedFileError(`${noun} ${name} leads out of ${dir}`);
  const stats = statSync(real);
  if (!stats.isFile()) throw new ConfinedFileError(`${noun} ${name} is not a regular file`);
  if ((stats.mode & 0o111) === 0) throw new ConfinedFileError(`${noun} ${name} is not executable`);
  return real;
}

/** The names of the executable regular files directly in the directory, sorted; none when it is missing. */
export function executablesIn(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries
    .filter((name) => {
      try {
        executableInside(dir, name, 'the file');
        return true;
      } catch {
        return false;
      }
    })
    .sort();
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Writes `text` into the file `name` of the directory, replacing it. The directory it goes into
 * must exist and be inside `dir` after links; the file itself must not be a symbolic link.
 */
export function writeFileInside(dir: string, name: string, text: string, noun: string): string {
  const root = realDirectory(dir, noun, name);
  const target = join(root, name);
  let parent: string;
  try {
    parent = realpathSync(dirname(target));
  } catch (e) {
    throw new ConfinedFileError(
      `the directory of ${noun} ${name} does not exist in ${dir} (${(e as NodeJS.ErrnoException).code})`,
    );
  }
  if (parent !== root && !isInside(parent, root))
    throw new ConfinedFileError(`${noun} ${name} leads out of ${dir}`);
  const existing = lstatOrUndefined(target);
  if (existing && !existing.isFile()) throw new ConfinedFileError(`${noun} ${name} is not a regular file`);
  let fd: number;
  try {
    // No following of a link put there meanwhile, no blocking on a FIFO.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    fd = openSync(target, flags, 0o640);
  } catch (e) {
    throw new ConfinedFileError(
      `${noun} ${name} cannot be written in ${dir} (${(e as NodeJS.ErrnoException).code})`,
    );
  }
  try {
    if (!fstatSync(fd).isFile()) throw new ConfinedFileError(`${noun} ${name} is not a regular file`);
    ftruncateSync(fd, 0);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return target;
}
