// The "security module" of /system/hsm: holds the AES key that encrypts secrets at rest. The key
// file may be protected by a password (scrypt + AES-GCM); until that password is given, the module
// is not ready and nothing that needs a secret works, while the rest of the server runs.
import { createSecretKey, type KeyObject, randomBytes, scryptSync } from 'node:crypto';
import { join } from 'node:path';
import { HsmError } from '../errors.ts';
import { readOrCreateSecret, rewriteSecret } from './data-dir-files.ts';
import { open, seal } from './secret-box.ts';

export const KEY_FILE = 'encryption.key';
const KEY_BYTES = 32;
const MIN_PASSWORD = 8;

interface PlainKeyFile {
  format: 'authsrv-key-1';
  protected: false;
  key: string;
}
interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
interface ProtectedKeyFile {
  format: 'authsrv-key-1';
  protected: true;
  kdf: ScryptParams & { name: 'scrypt'; salt: string };
  sealed: string;
}
type KeyFile = PlainKeyFile | ProtectedKeyFile;

const SCRYPT: ScryptParams = { N: 32_768, r: 8, p: 1 };

function kdf(password: string, salt: Buffer, k: ScryptParams): Buffer {
  return scryptSync(password, salt, KEY_BYTES, { N: k.N, r: k.r, p: k.p, maxmem: 256 * k.N * k.r });
}

/** The AES key encoded in `b64`, or undefined when it is not one. */
function aesKey(b64: unknown): Buffer | undefined {
  if (typeof b64 !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return undefined;
  const key = Buffer.from(b64, 'base64');
  return key.length === KEY_BYTES ? key : undefined;
}

/** Checks the parsed key file's shape, so that a damaged file fails at start, not at first use. */
function validKeyFile(f: unknown): f is KeyFile {
  if (f === null || typeof f !== 'object') return false;
  const o = f as Record<string, unknown>;
  if (o.format !== 'authsrv-key-1') return false;
  if (o.protected === false) return aesKey(o.key) !== undefined;
  if (o.protected !== true || typeof o.sealed !== 'string' || o.kdf === null || typeof o.kdf !== 'object') {
    return false;
  }
  const k = o.kdf as Record<string, unknown>;
  const int = (v: unknown, max: number) =>
    Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= max;
  // Bounded so that a planted file cannot make start-up allocate gigabytes.
  return (
    k.name === 'scrypt' &&
    int(k.N, 1 << 20) &&
    ((k.N as number) & ((k.N as number) - 1)) === 0 &&
    int(k.r, 32) &&
    int(k.p, 16) &&
    typeof k.salt === 'string' &&
    k.salt !== ''
  );
}

/** A check a key must pass before an unlock is accepted; it throws when the key is the wrong one. */
export type UnlockCheck = (decrypt: (sealed: string) => string) => void;

export class SecurityModule {
  private key: Buffer | undefined;
  private keyObject: { raw: Buffer; object: KeyObject } | undefined;
  private file: KeyFile;
  private readonly dir: string;
  private unlockCheck: UnlockCheck | undefined;

  private constructor(dir: string, file: KeyFile) {
    this.dir = dir;
    this.file = file;
    if (!file.protected) this.key = aesKey(file.key);
  }

  /** Loads (creating on first start) the key file of a data directory. */
  static load(dir: string): SecurityModule {
    const raw = readOrCreateSecret(dir, KEY_FILE, () =>
      JSON.stringify({
        format: 'authsrv-key-1',
        protected: false,
        key: randomBytes(KEY_BYTES).toString('base64'),
      }),
    );
    const path = join(dir, KEY_FILE);
    let file: unknown;
    try {
      file = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new HsmError(`${path} is not a valid key file (it is not JSON)`);
    }
    if (!validKeyFile(file)) {
      throw new HsmError(`${path} is not a valid key file (unknown format or damaged key)`);
    }
    return new SecurityModule(dir, file);
  }

  get isProtected(): boolean {
    return this.file.protected;
  }

  isReady(): boolean {
    return this.key !== undefined;
  }

  /**
   * Registers a check that a key unlocked later must pass (the database's key check, which cannot
   * run at start while the key is locked). A key that fails it leaves the module locked.
   */
  checkOnUnlock(check: UnlockCheck): void {
    this.unlockCheck = check;
  }

  /** Unlocks a password-protected key (POST /system/hsm). */
  unlock(password: string): void {
    if (this.key || !this.file.protected) throw new HsmError('HSM already set up.');
    const f = this.file;
    let key: Buffer | undefined;
    try {
      key = aesKey(open(kdf(password, Buffer.from(f.kdf.salt, 'base64'), f.kdf), f.sealed));
    } catch {
      key = undefined;
    }
    if (!key) throw new HsmError('Wrong password for the security module.');
    if (this.unlockCheck) {
      const k = key;
      this.unlockCheck((sealed) => open(k, sealed));
    }
    this.key = key;
  }

  /** Protects the key file with a password (or changes it); the module must be ready. */
  protect(password: string): void {
    const key = this.requireKey();
    if (password.length < MIN_PASSWORD) {
      throw new HsmError(`The security module password must have at least ${MIN_PASSWORD} characters.`);
    }
    const salt = randomBytes(16);
    const file: ProtectedKeyFile = {
      format: 'authsrv-key-1',
      protected: true,
      kdf: { name: 'scrypt', ...SCRYPT, salt: salt.toString('base64') },
      sealed: seal(kdf(password, salt, SCRYPT), key.toString('base64')),
    };
    rewriteSecret(this.dir, KEY_FILE, JSON.stringify(file));
    this.file = file;
  }

  encrypt(plaintext: string): string {
    return seal(this.cipherKey(), plaintext);
  }

  decrypt(sealed: string): string {
    return open(this.cipherKey(), sealed);
  }

  /** The key as a KeyObject, made once: every login decrypts a seed with it. */
  private cipherKey(): KeyObject {
    const key = this.requireKey();
    if (this.keyObject?.raw !== key) this.keyObject = { raw: key, object: createSecretKey(key) };
    return this.keyObject.object;
  }

  private requireKey(): Buffer {
    if (!this.key)
      throw new HsmError('The security module is not ready: set its password first (POST /system/hsm).');
    return this.key;
  }
}
