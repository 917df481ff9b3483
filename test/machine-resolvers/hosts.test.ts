// The hosts machine resolver: the hosts-file format (addresses as ids, several names, comments,
// lines that are not machines), the filters, the test, and a file that is missing or changes.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AllowedFiles } from '../../src/files/index.ts';
import { hostsMachineResolver, parseHosts } from '../../src/machine-resolvers/hosts.ts';

let dir: string;
let env: { log: pino.Logger; clock: () => Date; files: AllowedFiles };

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'authsrv-hosts-')));
  env = {
    log: pino({ level: 'silent' }),
    clock: () => new Date(),
    files: new AllowedFiles({ allowedDirs: [dir], ownFiles: [], maxBytes: 4096 }),
  };
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

describe('parseHosts', () => {
  it('reads addresses with their names, skipping comments, blank lines and lines that are no machine', () => {
    const text =
      '# comment\n\n127.0.0.1\tlocalhost\n10.1.2.3 a a.lab  # trailing\n  fe80::1 v6\nbogus x\n10.0.0.9\n';
    expect(parseHosts(text)).toEqual({
      machines: [
        { id: '127.0.0.1', hostname: ['localhost'], ip: '127.0.0.1' },
        { id: '10.1.2.3', hostname: ['a', 'a.lab'], ip: '10.1.2.3' },
        { id: 'fe80::1', hostname: ['v6'], ip: 'fe80::1' },
      ],
      skipped: 2,
    });
  });
});

describe('hostsMachineResolver', () => {
  it('lists the machines matching a filter and sees a changed file', async () => {
    const path = join(dir, 'hosts');
    writeFileSync(path, '10.0.0.1 gw\n10.0.0.2 web\n');
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = hostsMachineResolver.open({ filename: path }, env);
    expect((await store.machines({})).map((m) => m.id)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect((await store.machines({ hostname: 'we' })).map((m) => m.id)).toEqual(['10.0.0.2']);
    expect(await store.machines({ ip: '10.0.0' })).toEqual([]);
    writeFileSync(path, '10.0.0.3 db\n');
    vi.setSystemTime(Date.now() + 1500);
    expect((await store.machines({})).map((m) => m.id)).toEqual(['10.0.0.3']);
    rmSync(path);
    vi.setSystemTime(Date.now() + 1500);
    await expect(store.machines({})).rejects.toThrow(/^filename: .*hosts/);
  });

  it('tests a file: true with the count, false with the reason when it cannot be read', async () => {
    const path = join(dir, 'hosts');
    writeFileSync(path, '10.0.0.1 gw\nnot an address\n');
    expect(await hostsMachineResolver.test({ filename: path }, env)).toEqual({
      value: true,
      description: `Found 1 machines in ${path}. 1 line(s) are not a machine and were skipped.`,
    });
    const missing = await hostsMachineResolver.test({ filename: join(dir, 'nope') }, env);
    expect(missing.value).toBe(false);
    expect(missing.description).toMatch(/^filename: .*nope/);
  });

  it('checks the file setting against the allowed directories when saved', () => {
    expect(() => hostsMachineResolver.validate!({ filename: '/etc/hosts' }, env.files)).toThrow(
      /not in a directory allowed/,
    );
    expect(() => hostsMachineResolver.validate!({ filename: join(dir, 'later') }, env.files)).not.toThrow();
  });
});
