// Password hashes as user stores keep them: crypt(3) strings in passwd files, LDAP-style `{SSHA…}`
// values and PHP/WordPress hashes in SQL tables. Verification only ever answers true or false: an
// unknown, locked (`x`, `*`, `!…`) or damaged value is simply not the password. Work factors read
// from a stored hash are bounded, so a damaged or planted row cannot make one login run for minutes,
// and so is the password's length (password-length.ts). The expensive formats (SHA-crypt, phpass,
// bcrypt) run on the hash workers (hash-pool.ts), argon2id on libuv's pool: never on the event loop.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ParameterError } from '../errors.ts';
import { ITOA64 } from './crypt-alphabet.ts';
import { inHashWorker } from './hash-pool.ts';
import { hashPassword, verifyPassword } from './password-hash.ts';
import { overlongPassword, refuseOverlongPassword } from './password-length.ts';
import { shaCryptChecksumLength } from './sha-crypt.ts';

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function sameText(a: string, b: string): boolean {
  return sameBytes(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

// ---------------------------------------------------------------------------------------------
// SHA-crypt ($5$ sha256-crypt, $6$ sha512-crypt), after Ulrich Drepper's "Unix crypt using
// SHA-256 and SHA-512" (the algorithm glibc, passlib and `openssl passwd -5/-6` implement).

const SHA_CRYPT_DEFAULT_ROUNDS = 5000;
const SHA_CRYPT_MIN_ROUNDS = 1000;
/** Drepper allows 999,999,999; we refuse to spend more than a few seconds on one check. */
const SHA_CRYPT_MAX_ROUNDS = 1_000_000;
const SHA_CRYPT_MAX_SALT = 16;

/** A SHA-crypt checksum, computed on a hash worker. */
function shaCryptChecksum(id: '5' | '6', password: string, salt: string, rounds: number): Promise<string> {
  return inHashWorker({ kind: 'sha-crypt', id, password, salt, rounds });
}

const SHA_CRYPT = /^\$([56])\$(?:rounds=(\d{1,9})\$)?([^$:\n]*)\$([./0-9A-Za-z]+)$/;

async function verifyShaCrypt(stored: string, password: string): Promise<boolean> {
  const m = SHA_CRYPT.exec(stored);
  if (!m) return false;
  const id = m[1] as '5' | '6';
  const checksum = m[4]!;
  if (checksum.length !== shaCryptChecksumLength(id)) return false;
  const salt = m[3]!;
  if (Buffer.byteLength(salt, 'utf8') > SHA_CRYPT_MAX_SALT) return false;
  // glibc writes the rounds clamped to [1000, 999999999]; a value below the minimum never came
  // out of crypt(), so it cannot match what crypt() would produce now.
  const rounds = m[2] === undefined ? SHA_CRYPT_DEFAULT_ROUNDS : Number(m[2]);
  if (rounds < SHA_CRYPT_MIN_ROUNDS || rounds > SHA_CRYPT_MAX_ROUNDS) return false;
  if (m[2] !== undefined && String(rounds) !== m[2]) return false; // leading zeros: not crypt()'s output
  return sameText(await shaCryptChecksum(id, password, salt, rounds), checksum);
}

/**
 * crypt(3) with a `$5$…` or `$6$…` setting (`$6$salt`, `$6$rounds=N$salt`, or a whole hash): the
 * complete hash string as glibc would produce it. Exported for tests and for makeCryptHash.
 */
export async function shaCrypt(password: string, setting: string): Promise<string> {
  const m = /^\$([56])\$(?:rounds=(\d+)\$)?([^$]*)/.exec(setting);
  if (!m) throw new ParameterError('A SHA-crypt setting starts with $5$ or $6$');
  const id = m[1] as '5' | '6';
  let rounds = m[2] === undefined ? SHA_CRYPT_DEFAULT_ROUNDS : Number(m[2]);
  rounds = Math.min(Math.max(rounds, SHA_CRYPT_MIN_ROUNDS), 999_999_999);
  if (rounds > SHA_CRYPT_MAX_ROUNDS) throw new ParameterError(`More than ${SHA_CRYPT_MAX_ROUNDS} rounds`);
  refuseOverlongPassword(password);
  const salt = m[3]!.slice(0, SHA_CRYPT_MAX_SALT);
  const prefix = m[2] === undefined ? `$${id}$` : `$${id}$rounds=${rounds}$`;
  return `${prefix}${salt}$${await shaCryptChecksum(id, password, salt, rounds)}`;
}

// ---------------------------------------------------------------------------------------------
// bcrypt ($2a$, $2b$, $2y$ are the same computation for UTF-8 passwords): bcryptjs.

const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;
/** Cost 16 is about 10 s in pure JavaScript; real stores use 10 to 13. */
const BCRYPT_MAX_COST = 16;
const BCRYPT_NEW_COST = 10;

async function verifyBcrypt(stored: string, password: string): Promise<boolean> {
  const m = BCRYPT.exec(stored);
  if (!m) return false;
  const cost = Number(m[1]);
  if (cost < 4 || cost > BCRYPT_MAX_COST) return false;
  return inHashWorker({ kind: 'bcrypt-compare', password, hash: stored });
}

// ---------------------------------------------------------------------------------------------
// LDAP-style {SHA}, {SSHA}, {SHA256}, {SSHA256}, {SHA512}, {SSHA512}: base64 of the digest of
// password + salt, followed by the salt.

const LDAP_SCHEMES: Record<string, { algorithm: string; size: number; salted: boolean }> = {
  SHA: { algorithm: 'sha1', size: 20, salted: false },
  SSHA: { algorithm: 'sha1', size: 20, salted: true },
  SHA256: { algorithm: 'sha256', size: 32, salted: false },
  SSHA256: { algorithm: 'sha256', size: 32, salted: true },
  SHA512: { algorithm: 'sha512', size: 64, salted: false },
  SSHA512: { algorithm: 'sha512', size: 64, salted: true },
};
const LDAP_HASH = /^\{([A-Za-z0-9]+)\}([A-Za-z0-9+/]+={0,2})$/;
const LDAP_SALT_BYTES = 8;
const LDAP_MAX_SALT = 64;

function verifyLdapHash(stored: string, password: string): boolean {
  const m = LDAP_HASH.exec(stored);
  if (!m) return false;
  const scheme = LDAP_SCHEMES[m[1]!.toUpperCase()];
  if (!scheme || m[2]!.length % 4 !== 0) return false;
  const raw = Buffer.from(m[2]!, 'base64');
  const saltLength = raw.length - scheme.size;
  if (scheme.salted ? saltLength < 1 || saltLength > LDAP_MAX_SALT : saltLength !== 0) return false;
  const salt = raw.subarray(scheme.size);
  const digest = createHash(scheme.algorithm).update(password, 'utf8').update(salt).digest();
  return sameBytes(digest, raw.subarray(0, scheme.size));
}

function makeLdapHash(scheme: string, password: string): string {
  const s = LDAP_SCHEMES[scheme]!;
  const salt = s.salted ? randomBytes(LDAP_SALT_BYTES) : Buffer.alloc(0);
  const digest = createHash(s.algorithm).update(password, 'utf8').update(salt).digest();
  return `{${scheme}}${Buffer.concat([digest, salt]).toString('base64')}`;
}

// ---------------------------------------------------------------------------------------------
// phpass portable hashes ($P$ WordPress, $H$ phpBB): MD5 iterated 2^n times over salt + password.

const PHPASS = /^\$([PH])\$([./0-9A-Za-z])([./0-9A-Za-z]{8})([./0-9A-Za-z]{22})$/;
const PHPASS_MIN_LOG2 = 7;
/** phpass allows 2^30 iterations; a million is already several seconds here. */
const PHPASS_MAX_LOG2 = 20;
/** WordPress's setting ('B'). */
const PHPASS_NEW_LOG2 = 13;

/** A phpass checksum, computed on a hash worker. */
function phpassChecksum(password: string, salt: string, log2: number): Promise<string> {
  return inHashWorker({ kind: 'phpass', password, salt, log2 });
}

async function verifyPhpass(stored: string, password: string): Promise<boolean> {
  const m = PHPASS.exec(stored);
  if (!m) return false;
  const log2 = ITOA64.indexOf(m[2]!);
  if (log2 < PHPASS_MIN_LOG2 || log2 > PHPASS_MAX_LOG2) return false;
  return sameText(await phpassChecksum(password, m[3]!, log2), m[4]!);
}

// ---------------------------------------------------------------------------------------------

/** OTRS and other PHP applications keep an unsalted SHA-256 as 64 hex digits; privacyIDEA accepts it. */
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * True when `password` matches the stored hash. Recognised: `$6$`/`$5$` SHA-crypt (with and
 * without `rounds=`), bcrypt `$2a$/$2b$/$2y$`, `{SSHA}`, `{SSHA256}`, `{SSHA512}`, `{SHA}`,
 * `{SHA256}`, `{SHA512}`, `{CRYPT}` + a crypt hash, phpass `$P$`/`$H$`, argon2id PHC strings and
 * 64 hex digits (unsalted SHA-256). Anything else — `x`, `*`, `!…`, empty, unknown — is false, and
 * so is a password longer than any the services accept, or one whose hash worker failed.
 */
export async function verifyCryptHash(stored: string, password: string): Promise<boolean> {
  if (typeof stored !== 'string' || typeof password !== 'string' || overlongPassword(password)) return false;
  // CHAR columns come back padded with blanks; no format above contains whitespace.
  let h = stored.trim();
  if (/^\{CRYPT\}/i.test(h)) {
    h = h.slice(7);
    if (!h.startsWith('$')) return false; // DES crypt and friends: not supported
  }
  try {
    return await verifyFormat(h, password);
  } catch {
    return false;
  }
}

async function verifyFormat(h: string, password: string): Promise<boolean> {
  if (h.startsWith('$6$') || h.startsWith('$5$')) return verifyShaCrypt(h, password);
  if (h.startsWith('$2')) return verifyBcrypt(h, password);
  if (h.startsWith('$P$') || h.startsWith('$H$')) return verifyPhpass(h, password);
  if (h.startsWith('$argon2id$')) return verifyPassword(password, h);
  if (h.startsWith('{')) return verifyLdapHash(h, password);
  if (HEX_SHA256.test(h)) {
    return sameText(createHash('sha256').update(password, 'utf8').digest('hex'), h.toLowerCase());
  }
  return false;
}

function randomCryptSalt(chars: number): string {
  let out = '';
  for (const byte of randomBytes(chars)) out += ITOA64[byte & 0x3f];
  return out;
}

/** The hash types an editable store can write, by normalised name (upper case, no `-`/`_`). */
const MAKERS: Record<string, (password: string) => Promise<string>> = {
  SSHA: async (pw) => makeLdapHash('SSHA', pw),
  SSHA256: async (pw) => makeLdapHash('SSHA256', pw),
  SSHA512: async (pw) => makeLdapHash('SSHA512', pw),
  SHA: async (pw) => makeLdapHash('SHA', pw),
  SHA256: async (pw) => makeLdapHash('SHA256', pw),
  SHA512: async (pw) => makeLdapHash('SHA512', pw),
  OTRS: async (pw) => createHash('sha256').update(pw, 'utf8').digest('hex'),
  BCRYPT: (pw) => inHashWorker({ kind: 'bcrypt-hash', password: pw, cost: BCRYPT_NEW_COST }),
  SHA512CRYPT: (pw) => shaCrypt(pw, `$6$${randomCryptSalt(16)}`),
  SHA256CRYPT: (pw) => shaCrypt(pw, `$5$${randomCryptSalt(16)}`),
  PHPASS: async (pw) => {
    const salt = randomCryptSalt(8);
    return `$P$${ITOA64[PHPASS_NEW_LOG2]}${salt}${await phpassChecksum(pw, salt, PHPASS_NEW_LOG2)}`;
  },
  ARGON2ID: (pw) => hashPassword(pw),
  ARGON2: (pw) => hashPassword(pw),
};

export const CRYPT_HASH_TYPES: readonly string[] = Object.keys(MAKERS);

function normaliseType(type: string): string {
  return type.toUpperCase().replace(/[-_\s]/g, '');
}

export function isCryptHashType(type: string): boolean {
  return normaliseType(type) in MAKERS;
}

/**
 * A new hash of `password` in the given format: SSHA, SSHA256, SSHA512, SHA, SHA256, SHA512
 * (unsalted, `{…}` base64), OTRS (hex SHA-256), bcrypt, sha512-crypt, sha256-crypt, phpass, argon2id.
 * Spelling is loose: `sha512_crypt`, `SHA512CRYPT` and `sha512-crypt` are one type.
 */
export async function makeCryptHash(type: string, password: string): Promise<string> {
  const make = MAKERS[normaliseType(type)];
  if (!make) {
    throw new ParameterError(`Unknown password hash type '${type}' (known: ${CRYPT_HASH_TYPES.join(', ')})`);
  }
  refuseOverlongPassword(password);
  return make(password);
}
