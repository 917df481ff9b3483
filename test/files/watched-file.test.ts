// A file a setting names, kept parsed: read at once (a missing file fails at once), read again
// only when it changed and at most once a second, and refused — nothing of the earlier reading
// served — while it is gone, until it is back.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AllowedFiles, WatchedFile } from '../../src/files/index.ts';

let dir: string;
let files: AllowedFiles;
let parses: number;
const parse = (text: string) => {
  parses++;
  return text.trim().split('\n');
};

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'authsrv-watched-')));
  files = new AllowedFiles({ allowedDirs: [dir], ownFiles: [], maxBytes: 1024 });
  parses = 0;
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

describe('WatchedFile', () => {
  it('reads the file once, and again only after it changed and a second passed', () => {
    const path = join(dir, 'list');
    writeFileSync(path, 'a\nb\n');
    const w = new WatchedFile(files, path, 'filename', parse);
    expect(w.current()).toEqual(['a', 'b']);
    expect(w.current()).toEqual(['a', 'b']);
    expect(parses).toBe(1);
    writeFileSync(path, 'c\n');
    // Within the second: the earlier reading.
    vi.setSystemTime(Date.now() + 500);
    expect(w.current()).toEqual(['a', 'b']);
    vi.setSystemTime(Date.now() + 1000);
    expect(w.current()).toEqual(['c']);
    expect(parses).toBe(2);
    // Unchanged: looked at, not parsed again.
    vi.setSystemTime(Date.now() + 1500);
    expect(w.current()).toEqual(['c']);
    expect(parses).toBe(2);
  });

  it('fails at once for a missing file, and refuses a file that went away until it is back', () => {
    const path = join(dir, 'list');
    expect(() => new WatchedFile(files, path, 'filename', parse)).toThrow(/^filename: .*list/);
    writeFileSync(path, 'a\n');
    const w = new WatchedFile(files, path, 'filename', parse);
    rmSync(path);
    vi.setSystemTime(Date.now() + 1500);
    expect(() => w.current()).toThrow(/^filename: .*list/);
    // Still refused without another look.
    expect(() => w.current()).toThrow(/^filename: /);
    writeFileSync(path, 'b\n');
    vi.setSystemTime(Date.now() + 1500);
    expect(w.current()).toEqual(['b']);
  });

  it('refuses a file outside the allowed directories', () => {
    expect(() => new WatchedFile(files, '/etc/hosts', 'filename', parse)).toThrow(
      /not in a directory allowed/,
    );
    expect(parses).toBe(0);
  });
});
