import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureDataDir } from '../../src/crypto/data-dir-files.ts';
import { KEY_FILE, SecurityModule } from '../../src/crypto/security-module.ts';
import { HsmError } from '../../src/errors.ts';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'authsrv-hsm-'));
  dir = join(root, 'data');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function fresh(): SecurityModule {
  ensureDataDir(dir);
  return SecurityModule.load(dir);
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('SecurityModule', () => {
  it('creates its key file with mode 0600 in a data directory of mode 0700', () => {
    const hsm = fresh();
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, KEY_FILE))).toBe(0o600);
    expect(hsm.isReady()).toBe(true);
    expect(hsm.isProtected).toBe(false);
    const file = JSON.parse(readFileSync(join(dir, KEY_FILE), 'utf8'));
    expect(file.format).toBe('authsrv-key-1');
    expect(Buffer.from(file.key, 'base64')).toHaveLength(32);
  });

  it('keeps the key across loads', () => {
    const sealed = fresh().encrypt('seed');
    expect(SecurityModule.load(dir).decrypt(sealed)).toBe('seed');
  });

  it('round-trips text through encrypt and decrypt, with a new nonce each time', () => {
    const hsm = fresh();
    for (const text of [
      '',
      '3132333435363738393031323334353637383930',
      'pässwörd ✓ 🔑',
      'x'.repeat(10_000),
    ]) {
      const sealed = hsm.encrypt(text);
      expect(sealed).not.toContain(text || '\u0000');
      expect(hsm.decrypt(sealed)).toBe(text);
    }
    expect(hsm.encrypt('same')).not.toBe(hsm.encrypt('same'));
  });

  it('cannot decrypt with another data directory key', () => {
    const sealed = fresh().encrypt('seed');
    const other = join(root, 'other');
    ensureDataDir(other);
    expect(() => SecurityModule.load(other).decrypt(sealed)).toThrow();
  });

  it('locks the key with a password and unlocks it only with that password', () => {
    const hsm = fresh();
    const old = hsm.encrypt('token seed');
    hsm.protect('correct horse battery');
    expect(hsm.isProtected).toBe(true);
    expect(hsm.isReady()).toBe(true); // the instance that protected it stays usable
    expect(hsm.decrypt(old)).toBe('token seed');
    expect(mode(join(dir, KEY_FILE))).toBe(0o600);
    const text = readFileSync(join(dir, KEY_FILE), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ protected: true, kdf: { name: 'scrypt' } });
    expect(text).not.toContain(JSON.parse(text).key ?? 'no plain key field');

    const locked = SecurityModule.load(dir);
    expect(locked.isProtected).toBe(true);
    expect(locked.isReady()).toBe(false);
    expect(() => locked.encrypt('x')).toThrow(HsmError);
    expect(() => locked.decrypt(old)).toThrow(HsmError);
    expect(() => locked.unlock('wrong password')).toThrow(HsmError);
    expect(() => locked.unlock('wrong password')).toThrow(/wrong password/i);
    expect(locked.isReady()).toBe(false);

    locked.unlock('correct horse battery');
    expect(locked.isReady()).toBe(true);
    expect(locked.decrypt(old)).toBe('token seed');
    expect(hsm.decrypt(locked.encrypt('new'))).toBe('new');
    expect(() => locked.unlock('correct horse battery')).toThrow(/already/);
  });

  it('changes the password of a protected key', () => {
    const hsm = fresh();
    const old = hsm.encrypt('seed');
    hsm.protect('first password');
    const unlocked = SecurityModule.load(dir);
    unlocked.unlock('first password');
    unlocked.protect('second password');
    const again = SecurityModule.load(dir);
    expect(() => again.unlock('first password')).toThrow(HsmError);
    again.unlock('second password');
    expect(again.decrypt(old)).toBe('seed');
  });

  it('refuses a short password and leaves the key file as it was', () => {
    const hsm = fresh();
    const before = readFileSync(join(dir, KEY_FILE), 'utf8');
    expect(() => hsm.protect('short')).toThrow(HsmError);
    expect(() => hsm.protect('1234567')).toThrow(/at least 8/);
    expect(readFileSync(join(dir, KEY_FILE), 'utf8')).toBe(before);
    expect(SecurityModule.load(dir).isReady()).toBe(true);
  });

  it('cannot protect a locked key', () => {
    fresh().protect('a good password');
    expect(() => SecurityModule.load(dir).protect('another password')).toThrow(HsmError);
  });

  it('rejects a damaged key file with a message naming it', () => {
    ensureDataDir(dir);
    writeFileSync(join(dir, KEY_FILE), 'not json', { mode: 0o600 });
    expect(() => SecurityModule.load(dir)).toThrow(/encryption\.key/);
    writeFileSync(join(dir, KEY_FILE), JSON.stringify({ format: 'other' }));
    expect(() => SecurityModule.load(dir)).toThrow(/encryption\.key/);
    writeFileSync(
      join(dir, KEY_FILE),
      JSON.stringify({ format: 'authsrv-key-1', protected: false, key: Buffer.alloc(16).toString('base64') }),
    );
    expect(() => SecurityModule.load(dir)).toThrow(/encryption\.key/);
    writeFileSync(join(dir, KEY_FILE), '');
    expect(() => SecurityModule.load(dir)).toThrow(/encryption\.key/);
  });

  it('rejects a protected key file with missing or absurd key derivation parameters', () => {
    fresh().protect('a good password');
    const good = JSON.parse(readFileSync(join(dir, KEY_FILE), 'utf8'));
    for (const kdf of [
      undefined,
      { ...good.kdf, name: 'pbkdf2' },
      { ...good.kdf, N: 1 << 30 },
      { ...good.kdf, N: 1000 },
      { ...good.kdf, r: 0 },
      { ...good.kdf, salt: '' },
    ]) {
      writeFileSync(join(dir, KEY_FILE), JSON.stringify({ ...good, kdf }));
      expect(() => SecurityModule.load(dir), JSON.stringify(kdf)).toThrow(HsmError);
    }
    writeFileSync(join(dir, KEY_FILE), JSON.stringify({ ...good, sealed: 42 }));
    expect(() => SecurityModule.load(dir)).toThrow(/encryption\.key/);
  });

  it('refuses an unlock that a registered check rejects, and stays locked', () => {
    const hsm = fresh();
    const canary = hsm.encrypt('canary');
    hsm.protect('a good password');
    const locked = SecurityModule.load(dir);
    locked.checkOnUnlock((decrypt) => {
      if (decrypt(canary) !== 'something else') throw new HsmError('wrong key for this database');
    });
    expect(() => locked.unlock('a good password')).toThrow('wrong key for this database');
    expect(locked.isReady()).toBe(false);
    locked.checkOnUnlock((decrypt) => {
      if (decrypt(canary) !== 'canary') throw new HsmError('wrong key for this database');
    });
    locked.unlock('a good password');
    expect(locked.isReady()).toBe(true);
  });

  it('leaves no temporary files behind', () => {
    fresh().protect('a good password');
    expect(readdirSync(dir)).toEqual([KEY_FILE]);
  });
});
