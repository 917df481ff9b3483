// privacyIDEA's encryption key file (PI_ENCFILE): 96 bytes, three AES-256 keys. Slot 0 encrypts
// token seeds, user/SO PINs and encrypted OTP PINs; slot 1 every "password"-typed value; slot 2 is
// unused. Values are AES-256-CBC with PKCS#7, or, in rows written by very old versions, the LinOTP
// padding (hex text, then 0x01 0x02, then zeros). A key file longer than 100 bytes is itself
// encrypted with a password (pi-manage setup encrypt_enckey).
import { createDecipheriv, createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ParameterError } from '../../../errors.ts';

const KEY_BYTES = 32;

/** What privacyIDEA substitutes for a "password" value it cannot decrypt. */
export const FAILED_TO_DECRYPT = 'FAILED TO DECRYPT PASSWORD!';

export class PiKeys {
  readonly #token: Buffer;
  readonly #config: Buffer;

  constructor(keyBytes: Buffer) {
    if (keyBytes.length !== 3 * KEY_BYTES)
      throw new ParameterError(`The privacyIDEA key file must hold 96 bytes (it holds ${keyBytes.length})`);
    this.#token = keyBytes.subarray(0, KEY_BYTES);
    this.#config = keyBytes.subarray(KEY_BYTES, 2 * KEY_BYTES);
  }

  /** Reads PI_ENCFILE; an encrypted one needs its password. */
  static fromFile(file: string, password?: string): PiKeys {
    let content: Buffer;
    try {
      content = readFileSync(file);
    } catch (e) {
      throw new ParameterError(`Cannot read the privacyIDEA key file ${file}: ${(e as Error).message}`);
    }
    if (content.length <= 100) return new PiKeys(content);
    if (password === undefined)
      throw new ParameterError(
        `The privacyIDEA key file ${file} is encrypted: give its password (--encfile-password-stdin)`,
      );
    return new PiKeys(decryptKeyFile(content.toString('utf8').trim(), password));
  }

  /** A token secret (key_enc with key_iv), user PIN or SO PIN: the plaintext bytes. */
  tokenValue(ivHex: string, cipherHex: string): Buffer {
    return decrypt(this.#token, ivHex, cipherHex);
  }

  /** An encrypted OTP PIN, `@@<iv>:<ciphertext>`. */
  encryptedPin(pinHash: string): string {
    const [iv, ct] = splitIvValue(pinHash.slice(2));
    return decrypt(this.#token, iv, ct).toString('utf8');
  }

  /** A "password"-typed value, `<iv>:<ciphertext>`; undefined when it does not decrypt. */
  configValue(ivValue: string): string | undefined {
    try {
      const [iv, ct] = splitIvValue(ivValue);
      return decrypt(this.#config, iv, ct).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

function splitIvValue(value: string): [string, string] {
  const at = value.indexOf(':');
  if (at < 0) throw new ParameterError('An encrypted privacyIDEA value has no IV');
  return [value.slice(0, at), value.slice(at + 1)];
}

function decrypt(key: Buffer, ivHex: string, cipherHex: string): Buffer {
  const iv = Buffer.from(ivHex, 'hex');
  const ct = Buffer.from(cipherHex, 'hex');
  if (iv.length !== 16 || ct.length === 0 || ct.length % 16 !== 0)
    throw new ParameterError('An encrypted privacyIDEA value is malformed');
  const decipher = createDecipheriv('aes-256-cbc', key, iv);
  decipher.setAutoPadding(false);
  const padded = Buffer.concat([decipher.update(ct), decipher.final()]);
  return pkcs7(padded) ?? legacyPadding(padded);
}

/** The plaintext without PKCS#7 padding, or undefined when the padding is not PKCS#7. */
function pkcs7(padded: Buffer): Buffer | undefined {
  const n = padded[padded.length - 1] ?? 0;
  if (n < 1 || n > 16 || n > padded.length) return undefined;
  for (let i = padded.length - n; i < padded.length; i++) if (padded[i] !== n) return undefined;
  return padded.subarray(0, padded.length - n);
}

/** LinOTP's padding: hex text of the value, 0x01 0x02, zeros. */
function legacyPadding(padded: Buffer): Buffer {
  const end = padded.lastIndexOf(Buffer.from([1, 2]));
  const hex = end < 0 ? '' : padded.subarray(0, end).toString('latin1');
  if (end < 0 || !/^([0-9a-fA-F]{2})*$/.test(hex))
    throw new ParameterError('An encrypted privacyIDEA value does not decrypt with this key file');
  return Buffer.from(hex, 'hex');
}

/** An encrypted key file: `<iv>:<ct>`, AES-256-CBC with SHA-256(password), LinOTP-padded hex. */
function decryptKeyFile(text: string, password: string): Buffer {
  const [iv, ct] = splitIvValue(text);
  const key = createHash('sha256').update(password, 'utf8').digest();
  try {
    return decrypt(key, iv, ct);
  } catch {
    throw new ParameterError('The password of the privacyIDEA key file is wrong');
  }
}
