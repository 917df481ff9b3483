// The "security module" of /system/hsm: holds the AES key that encrypts secrets at rest. The key
// file may be protected by a password (scrypt + AES-GCM); until that password is given, the module
// is not ready and nothing that needs a secret works, while the rest of the server runs.
import { randomBytes, scryptSync } from 'node:crypto';
import { HsmError } from '../core/errors.ts';
import { readOrCreateSecret, rewriteSecret } from './data-dir-files.ts';
import { open, seal } from './secret-box.ts';

export const KEY_FILE = 'encryption.key';

interface PlainKeyFile {
  format: 'authsrv-key-1';
  protected: false;
  key: string;
}
interface ProtectedKeyFile {
  format: 'authsrv-key-1';
  protected: true;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  sealed: string;
}
type KeyFile = PlainKeyFile | ProtectedKeyFile;

const SCRYPT = { N: 32_768, r: 8, p: 1 };

function kdf(password: string, salt: Buffer, k: { N: number; r: number; p: number }): Buffer {
  return scryptSync(password, salt, 32, { N: k.N, r: k.r, p: k.p, maxmem: 256 * k.N * k.r });
}

export class SecurityModule {
  private key: Buffer | undefined;
  private readonly file: KeyFile;
  private readonly dir: string;

  private constructor(dir: string, file: KeyFile) {
    this.dir = dir;
    this.file = file;
    if (!file.protected) this.key = Buffer.from(file.key, 'base64');
  }

  /** Loads (creating on first start) the key file of a data directory. */
  static load(dir: string): SecurityModule {
    const raw = readOrCreateSecret(dir, KEY_FILE, () =>
      JSON.stringify({ format: 'authsrv-key-1', protected: false, key: randomBytes(32).toString('base64') }),
    );
    let file: KeyFile;
    try {
      file = JSON.parse(raw.toString('utf8')) as KeyFile;
    } catch {
      throw new Error(`${dir}/${KEY_FILE} is not a valid key file`);
    }
    if (file.format !== 'authsrv-key-1') throw new Error(`${dir}/${KEY_FILE} has an unknown format`);
    return new SecurityModule(dir, file);
  }

  get isProtected(): boolean {
    return this.file.protected;
  }

  isReady(): boolean {
    return this.key !== undefined;
  }

  /** Unlocks a password-protected key (POST /system/hsm). */
  unlock(password: string): void {
    if (this.key) throw new HsmError('HSM already set up.');
    const f = this.file as ProtectedKeyFile;
    try {
      this.key = Buffer.from(
        open(kdf(password, Buffer.from(f.kdf.salt, 'base64'), f.kdf), f.sealed),
        'base64',
      );
    } catch {
      throw new HsmError('Wrong password for the security module.');
    }
  }

  /** Protects the key file with a password (or changes it); the module must be ready. */
  protect(password: string): void {
    const key = this.requireKey();
    if (password.length < 8)
      throw new HsmError('The security module password must have at least 8 characters.');
    const salt = randomBytes(16);
    const file: ProtectedKeyFile = {
      format: 'authsrv-key-1',
      protected: true,
      kdf: { name: 'scrypt', ...SCRYPT, salt: salt.toString('base64') },
      sealed: seal(kdf(password, salt, SCRYPT), key.toString('base64')),
    };
    rewriteSecret(this.dir, KEY_FILE, JSON.stringify(file));
  }

  encrypt(plaintext: string): string {
    return seal(this.requireKey(), plaintext);
  }

  decrypt(sealed: string): string {
    return open(this.requireKey(), sealed);
  }

  private requireKey(): Buffer {
    if (!this.key)
      throw new HsmError('The security module is not ready: set its password first (POST /system/hsm).');
    return this.key;
  }
}
