// The rule for files that settings name: allowed directories (links and `..` resolved), regular
// files only, never the server's own files, and a size limit also for files that lie about theirs.
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { AllowedFiles, readRegularFile } from '../../src/files/index.ts';

const OUTSIDE =
  /^Filename: .* is not in a directory allowed for the server's files \(files\.allowed_dirs in the configuration file; an entry may also name one file\)$/;

let home: string;
let dir: string;
let files: AllowedFiles;

beforeEach(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'authsrv-files-')));
  dir = join(home, 'allowed');
  mkdirSync(dir);
  writeFileSync(join(dir, 'passwd'), 'alice:x:1:1::/h:/s\n');
  writeFileSync(join(home, 'secret'), 'not for you\n');
  writeFileSync(join(dir, 'own.key'), 'the server key\n');
  files = new AllowedFiles({
    allowedDirs: [dir, join(home, 'missing-dir')],
    ownFiles: [join(dir, 'own.key')],
    maxBytes: 1024,
    maxBytesSetting: 'files.max_bytes',
  });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

/** The message of what `fn` throws, which must be a ParameterError. */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ParameterError);
    return (e as Error).message;
  }
  throw new Error('not refused');
}

/** Every way of using a path refuses it with the same message. */
function refusedEverywhere(path: string): string {
  const message = refusal(() => files.read(path, 'Filename'));
  expect(refusal(() => files.open(path, 'Filename'))).toBe(message);
  expect(refusal(() => files.realPath(path, 'Filename'))).toBe(message);
  expect(refusal(() => files.checkSetting(path, 'Filename'))).toBe(message);
  return message;
}

describe('AllowedFiles', () => {
  it('reads a regular file inside an allowed directory', () => {
    expect(files.read(join(dir, 'passwd'), 'Filename').toString()).toBe('alice:x:1:1::/h:/s\n');
    expect(files.realPath(join(dir, 'passwd'), 'Filename')).toBe(join(dir, 'passwd'));
    expect(() => files.checkSetting(join(dir, 'passwd'), 'Filename')).not.toThrow();
    const opened = files.open(join(dir, 'passwd'), 'Filename');
    expect(opened.stats.size).toBe(19);
    opened.close();
  });

  it.each([['/etc/shadow'], ['/proc/self/environ'], ['/dev/zero'], ['/etc/passwd']])(
    'refuses %s: outside the allowed directories',
    (path) => {
      expect(refusedEverywhere(path)).toMatch(OUTSIDE);
    },
  );

  it('refuses a link out of the allowed directory, and `..` out of it', () => {
    symlinkSync(join(home, 'secret'), join(dir, 'link-out'));
    symlinkSync(home, join(dir, 'dir-link-out'));
    expect(refusedEverywhere(join(dir, 'link-out'))).toMatch(OUTSIDE);
    expect(refusedEverywhere(join(dir, 'dir-link-out', 'secret'))).toMatch(OUTSIDE);
    expect(refusedEverywhere(`${dir}/../secret`)).toMatch(OUTSIDE);
    expect(refusedEverywhere(`${dir}/../../../../etc/shadow`)).toMatch(OUTSIDE);
    // A directory whose name starts like the allowed one is another directory.
    mkdirSync(`${dir}-not`);
    writeFileSync(`${dir}-not/passwd`, 'x');
    expect(refusedEverywhere(`${dir}-not/passwd`)).toMatch(OUTSIDE);
  });

  it('follows links that stay inside, and takes relative paths from the working directory', () => {
    symlinkSync(join(dir, 'passwd'), join(dir, 'link-in'));
    expect(files.read(join(dir, 'link-in'), 'Filename').toString()).toMatch(/^alice/);
    const rel = relative(process.cwd(), join(dir, 'passwd'));
    expect(files.read(rel, 'Filename').toString()).toMatch(/^alice/);
    // An allowed directory reached through a link is the directory it points to.
    symlinkSync(dir, join(home, 'dir-alias'));
    const viaAlias = new AllowedFiles({
      allowedDirs: [join(home, 'dir-alias')],
      ownFiles: [],
      maxBytes: 1024,
    });
    expect(viaAlias.read(join(dir, 'passwd'), 'Filename').toString()).toMatch(/^alice/);
  });

  it('allows exactly the file that an entry names, not its neighbours', () => {
    const one = new AllowedFiles({ allowedDirs: ['/etc/passwd'], ownFiles: [], maxBytes: 1 << 20 });
    expect(one.read('/etc/passwd', 'Filename').toString()).toMatch(/^root:/);
    expect(refusal(() => one.read('/etc/shadow', 'Filename'))).toMatch(OUTSIDE);
    expect(refusal(() => one.read('/etc/passwd-', 'Filename'))).toMatch(OUTSIDE);
  });

  it('refuses a directory, a FIFO and a device inside an allowed directory: regular files only', () => {
    mkdirSync(join(dir, 'sub'));
    expect(refusedEverywhere(join(dir, 'sub'))).toBe(`Filename: ${join(dir, 'sub')} is not a regular file`);
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    // Opening a FIFO for reading would wait for a writer; it is refused at once.
    expect(refusal(() => files.read(join(dir, 'fifo'), 'Filename'))).toMatch(/fifo is not a regular file$/);
    const devices = new AllowedFiles({ allowedDirs: ['/dev'], ownFiles: [], maxBytes: 1024 });
    expect(refusal(() => devices.read('/dev/zero', 'Filename'))).toBe(
      'Filename: /dev/zero is not a regular file',
    );
  });

  it('refuses a file beyond the limit, also one that reports a size of 0 (/proc)', () => {
    writeFileSync(join(dir, 'big'), Buffer.alloc(1025, 'a'));
    writeFileSync(join(dir, 'just'), Buffer.alloc(1024, 'a'));
    const tooLarge = `Filename: ${join(dir, 'big')} is larger than 1024 bytes (files.max_bytes)`;
    expect(refusal(() => files.read(join(dir, 'big'), 'Filename'))).toBe(tooLarge);
    expect(refusal(() => files.open(join(dir, 'big'), 'Filename'))).toBe(tooLarge);
    expect(refusal(() => files.checkSetting(join(dir, 'big'), 'Filename'))).toBe(tooLarge);
    expect(files.read(join(dir, 'just'), 'Filename')).toHaveLength(1024);
    // realPath is for a file opened by a library, not read whole: no size limit.
    expect(files.realPath(join(dir, 'big'), 'Filename')).toBe(join(dir, 'big'));
    const proc = new AllowedFiles({ allowedDirs: ['/proc'], ownFiles: [], maxBytes: 16 });
    expect(refusal(() => proc.read('/proc/self/environ', 'Filename'))).toBe(
      'Filename: /proc/self/environ is larger than 16 bytes',
    );
  });

  it("refuses the server's own files, by any name", () => {
    const own = "is one of the server's own files (keys, database, configuration)";
    expect(refusedEverywhere(join(dir, 'own.key'))).toMatch(own);
    linkSync(join(dir, 'own.key'), join(dir, 'hard-link'));
    expect(refusedEverywhere(join(dir, 'hard-link'))).toMatch(own);
    symlinkSync(join(dir, 'own.key'), join(dir, 'soft-link'));
    expect(refusedEverywhere(join(dir, 'soft-link'))).toMatch(own);
  });

  it('accepts, when a setting is saved, a file that does not exist yet inside an allowed directory', () => {
    expect(() => files.checkSetting(join(dir, 'later'), 'Filename')).not.toThrow();
    expect(() => files.checkSetting(join(dir, 'a/b/later'), 'Filename')).not.toThrow();
    expect(() => files.checkSetting(join(home, 'missing-dir', 'later'), 'Filename')).not.toThrow();
    expect(refusal(() => files.checkSetting(join(home, 'later'), 'Filename'))).toMatch(OUTSIDE);
    expect(refusal(() => files.checkSetting(join(dir, 'a/../../later'), 'Filename'))).toMatch(OUTSIDE);
    symlinkSync(home, join(dir, 'up'));
    expect(refusal(() => files.checkSetting(join(dir, 'up/later'), 'Filename'))).toMatch(OUTSIDE);
    // Opened, it does not exist; a library's caller is told so and decides what that means.
    expect(refusal(() => files.read(join(dir, 'later'), 'Filename'))).toBe(
      `Filename: ${join(dir, 'later')} does not exist`,
    );
    expect(files.realPath(join(dir, 'later'), 'Filename')).toBeUndefined();
    // Outside, nothing tells whether it exists.
    expect(refusal(() => files.read('/nonexistent/passwd', 'Filename'))).toMatch(OUTSIDE);
  });

  it('refuses an empty name and a NUL character with a clear error', () => {
    expect(refusedEverywhere('')).toBe('Filename: no file name given');
    expect(refusedEverywhere(`${dir}/passwd\u0000x`)).toBe(
      'Filename: the file name contains a NUL character',
    );
  });
});

describe('readRegularFile (files the operator names in the configuration file)', () => {
  it('reads a regular file anywhere, and refuses a directory, a device or a file beyond the limit', () => {
    expect(readRegularFile(join(home, 'secret'), 'security.key_password_file', 100).toString()).toBe(
      'not for you\n',
    );
    expect(refusal(() => readRegularFile(home, 'http.tls_cert', 100))).toBe(
      `http.tls_cert: ${home} is not a regular file`,
    );
    expect(refusal(() => readRegularFile('/dev/zero', 'http.tls_key', 100))).toBe(
      'http.tls_key: /dev/zero is not a regular file',
    );
    expect(refusal(() => readRegularFile(join(home, 'secret'), 'x', 4))).toBe(
      `x: ${join(home, 'secret')} is larger than 4 bytes`,
    );
  });
});
