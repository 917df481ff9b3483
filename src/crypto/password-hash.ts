// Password and PIN hashes: argon2id from Node's crypto (OWASP minimum: 19 MiB, 2 passes), stored
// as a PHC string so parameters can be raised later without breaking old hashes. Hashing runs on
// libuv's thread pool, never on the event loop, in one of the process's hash slots (hash-slots.ts).
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashQueue, MAX_CONCURRENT_HASHES, withHashSlot } from './hash-slots.ts';
import { overlongPassword, refuseOverlongPassword } from './password-length.ts';

export { hashQueue, MAX_CONCURRENT_HASHES };

export interface Argon2Params {
  memoryKiB: number;
  passes: number;
  parallelism: number;
}

export const DEFAULT_ARGON2: Argon2Params = { memoryKiB: 19_456, passes: 2, parallelism: 1 };
const SALT_BYTES = 16;
const TAG_BYTES = 32;

function derive(password: string, salt: Buffer, p: Argon2Params, tagBytes = TAG_BYTES): Promise<Buffer> {
  return withHashSlot(() => deriveNow(password, salt, p, tagBytes));
}

function deriveNow(password: string, salt: Buffer, p: Argon2Params, tagBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2(
      'argon2id',
      {
        message: password,
        nonce: salt,
        parallelism: p.parallelism,
        tagLength: tagBytes,
        memory: p.memoryKiB,
        passes: p.passes,
      },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

const phcPrefix = (p: Argon2Params) => `$argon2id$v=19$m=${p.memoryKiB},t=${p.passes},p=${p.parallelism}$`;
const CURRENT_PREFIX = phcPrefix(DEFAULT_ARGON2);
const b64Length = (bytes: number) => Math.ceil((bytes * 4) / 3);
const CURRENT_LENGTH = CURRENT_PREFIX.length + b64Length(SALT_BYTES) + 1 + b64Length(TAG_BYTES);

/**
 * Whether a hash that just verified should be replaced by hashPassword's: it is not of authsrv's
 * current parameters and tag length (an imported privacyIDEA hash, or one of older parameters).
 * A string comparison only, so that asking costs the login path nothing.
 */
export function needsRehash(phc: string): boolean {
  return !(phc.length === CURRENT_LENGTH && phc.startsWith(CURRENT_PREFIX));
}

export async function hashPassword(password: string, params: Argon2Params = DEFAULT_ARGON2): Promise<string> {
  refuseOverlongPassword(password);
  const salt = randomBytes(SALT_BYTES);
  const tag = await derive(password, salt, params);
  return `${phcPrefix(params)}${b64(salt)}$${b64(tag)}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

// Bounds on what a stored hash may ask for: a damaged or planted row must not make one login
// allocate gigabytes or run for minutes on the thread pool.
const MAX_MEMORY_KIB = 1_048_576;
const MAX_PASSES = 64;
const MAX_PARALLELISM = 16;
// authsrv writes 32-byte tags; other argon2id hashers (passlib in privacyIDEA: 16) choose others.
const MIN_TAG_BYTES = 16;
const MAX_TAG_BYTES = 64;

export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const m = PHC.exec(phc);
  if (!m || overlongPassword(password)) return false;
  const params = { memoryKiB: Number(m[1]), passes: Number(m[2]), parallelism: Number(m[3]) };
  const salt = Buffer.from(m[4]!, 'base64');
  const expected = Buffer.from(m[5]!, 'base64');
  const sane =
    params.parallelism >= 1 &&
    params.parallelism <= MAX_PARALLELISM &&
    params.memoryKiB >= 8 * params.parallelism &&
    params.memoryKiB <= MAX_MEMORY_KIB &&
    params.passes >= 1 &&
    params.passes <= MAX_PASSES &&
    salt.length >= 8 &&
    expected.length >= MIN_TAG_BYTES &&
    expected.length <= MAX_TAG_BYTES;
  if (!sane) return false;
  try {
    const actual = await derive(password, salt, params, expected.length);
    return timingSafeEqual(actual, expected);
  } catch {
    return false;
  }
}

/** A hash of a random password: verified against when a user is unknown, so timing does not tell. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
