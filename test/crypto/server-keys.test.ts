import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureDataDir } from '../../src/crypto/data-dir-files.ts';
import { loadServerKeys } from '../../src/crypto/server-keys.ts';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'authsrv-keys-')), 'data');
  ensureDataDir(dir);
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

describe('server keys', () => {
  it('creates signing.key, signing.pub and jwt.secret with mode 0600, then reuses them', () => {
    const first = loadServerKeys(dir);
    for (const f of ['signing.key', 'signing.pub', 'jwt.secret']) {
      expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
    }
    expect(readFileSync(join(dir, 'signing.pub'), 'utf8')).toBe(first.signer.publicKeyPem);
    expect(first.jwtSecret.length).toBe(64);
    const again = loadServerKeys(dir);
    expect(again.signer.publicKeyPem).toBe(first.signer.publicKeyPem);
    expect(Buffer.from(again.jwtSecret).equals(Buffer.from(first.jwtSecret))).toBe(true);
    const sig = first.signer.sign('text');
    expect(again.signer.verify('text', sig)).toBe(true);
  });

  it('rewrites a signing.pub that does not belong to signing.key', () => {
    const keys = loadServerKeys(dir);
    writeFileSync(join(dir, 'signing.pub'), 'stale');
    loadServerKeys(dir);
    expect(readFileSync(join(dir, 'signing.pub'), 'utf8')).toBe(keys.signer.publicKeyPem);
    expect(statSync(join(dir, 'signing.pub')).mode & 0o777).toBe(0o600);
  });

  it('rejects a damaged signing.key or a weak jwt.secret, naming the file', () => {
    loadServerKeys(dir);
    writeFileSync(join(dir, 'jwt.secret'), 'c2hvcnQ=\n');
    expect(() => loadServerKeys(dir)).toThrow(/jwt\.secret/);
    writeFileSync(join(dir, 'jwt.secret'), '');
    expect(() => loadServerKeys(dir)).toThrow(/jwt\.secret/);
    writeFileSync(join(dir, 'signing.key'), 'not a key');
    expect(() => loadServerKeys(dir)).toThrow(/signing\.key/);
  });
});
