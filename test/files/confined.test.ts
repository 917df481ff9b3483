// Files of a configured directory named by a relative name: the name cannot leave the directory by
// its spelling nor by a symbolic link; executables are found and listed; a file is written only
// inside, never through a link or into something that is no regular file.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import {
  ConfinedFileError,
  executableInside,
  executablesIn,
  nameInside,
  writeFileInside,
} from '../../src/files/confined.ts';

const root = mkdtempSync(join(tmpdir(), 'authsrv-confined-'));
const dir = join(root, 'dir');
const outside = join(root, 'outside');
mkdirSync(dir);
mkdirSync(join(dir, 'sub'));
mkdirSync(outside);
writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\n');
chmodSync(join(dir, 'run.sh'), 0o755);
writeFileSync(join(dir, 'plain.txt'), 'x');
writeFileSync(join(outside, 'elsewhere.sh'), '#!/bin/sh\n');
chmodSync(join(outside, 'elsewhere.sh'), 0o755);
symlinkSync(join(outside, 'elsewhere.sh'), join(dir, 'link.sh'));
symlinkSync('run.sh', join(dir, 'alias.sh'));
symlinkSync(outside, join(dir, 'away'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('nameInside', () => {
  it('accepts relative names and refuses those that could leave the directory', () => {
    expect(nameInside('run.sh', 'script', 'the place')).toBe('run.sh');
    expect(nameInside('sub/x.txt', 'script', 'the place')).toBe('sub/x.txt');
    for (const bad of ['', '/etc/passwd', '../x', 'sub/../../x', 'a\\..\\b', 'nul\u0000']) {
      expect(() => nameInside(bad, 'script', 'the place')).toThrow(ParameterError);
    }
    expect(() => nameInside('../x', 'filename', 'the notification directory')).toThrow(
      "filename: '../x' must name a file inside the notification directory, without '..' or an absolute path",
    );
  });
});

describe('executableInside and executablesIn', () => {
  it('finds executable regular files inside, links inside included', () => {
    expect(executableInside(dir, 'run.sh', 'the script')).toBe(join(realRoot(), 'dir', 'run.sh'));
    expect(executableInside(dir, 'alias.sh', 'the script')).toBe(join(realRoot(), 'dir', 'run.sh'));
    expect(executablesIn(dir)).toEqual(['alias.sh', 'run.sh']);
    expect(executablesIn(join(root, 'missing'))).toEqual([]);
  });

  it('refuses missing files, links leading out, directories and files that are not executable', () => {
    expect(() => executableInside(dir, 'missing.sh', 'the script')).toThrow(
      `the script missing.sh does not exist in ${dir}`,
    );
    expect(() => executableInside(dir, 'link.sh', 'the script')).toThrow(
      `the script link.sh leads out of ${dir}`,
    );
    expect(() => executableInside(dir, 'away/elsewhere.sh', 'the script')).toThrow(/leads out of/);
    expect(() => executableInside(dir, 'sub', 'the script')).toThrow('the script sub is not a regular file');
    expect(() => executableInside(dir, 'plain.txt', 'the script')).toThrow(ConfinedFileError);
    expect(() => executableInside(join(root, 'missing'), 'run.sh', 'the script')).toThrow(/does not exist/);
  });
});

describe('writeFileInside', () => {
  it('writes and replaces a file inside the directory', () => {
    writeFileInside(dir, 'note.txt', 'a longer first text', 'the file');
    writeFileInside(dir, 'note.txt', 'second', 'the file');
    expect(readFileSync(join(dir, 'note.txt'), 'utf8')).toBe('second');
    writeFileInside(dir, 'sub/deeper.txt', 'deep', 'the file');
    expect(readFileSync(join(dir, 'sub', 'deeper.txt'), 'utf8')).toBe('deep');
  });

  it('never writes through a link, out of the directory, or into a FIFO', () => {
    writeFileSync(join(outside, 'target'), 'untouched');
    symlinkSync(join(outside, 'target'), join(dir, 'trap.txt'));
    expect(() => writeFileInside(dir, 'trap.txt', 'changed', 'the file')).toThrow(/not a regular file/);
    expect(() => writeFileInside(dir, 'away/new.txt', 'x', 'the file')).toThrow(/leads out of/);
    expect(() => writeFileInside(dir, 'nodir/new.txt', 'x', 'the file')).toThrow(/does not exist/);
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('untouched');
    execFileSync('mkfifo', [join(dir, 'fifo')]);
    expect(() => writeFileInside(dir, 'fifo', 'x', 'the file')).toThrow(/not a regular file/);
  });
});

function realRoot(): string {
  return execFileSync('realpath', [root], { encoding: 'utf8' }).trim();
}
