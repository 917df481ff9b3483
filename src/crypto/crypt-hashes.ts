// Password hashes as user stores keep them: crypt(3) strings in passwd files, LDAP-style `{SSHA…}`
// values and PHP/WordPress hashes in SQL tables. Verification only ever answers true or false: an
// unknown, locked (`x`, `*`, `!…`) or damaged value is simply not the password. Work factors read
// from a stored hash are bounded, so a damaged or planted row cannot make one login run for minutes;
// the long loops yield to the event loop now and then, since they run on the main thread.
import { createHash, hash as digestOnce, randomBytes, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { ParameterError } from '../errors.ts';
import { hashPassword, verifyPassword } from './password-hash.ts';

/** The alphabet of crypt(3), SHA-crypt and phpass (bcrypt uses its own order, handled by bcryptjs). */
const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Yield to the event loop after this many hash rounds (a few milliseconds of work). */
const ROUNDS_PER_SLICE = 2000;
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

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
/** Drepper allows 999,999,999; we refuse to spend more than about five seconds on one check. */
const SHA_CRYPT_MAX_ROUNDS = 1_000_000;
const SHA_CRYPT_MAX_SALT = 16;

interface ShaCryptVariant {
  id: '5' | '6';
  algorithm: 'sha256' | 'sha512';
  size: number;
  /** Byte triples of the final digest, in the order Drepper's encoding emits them (4 chars each). */
  order: readonly (readonly [number, number, number])[];
  /** The last, incomplete group. */
  tail: (d: Buffer) => string;
}

const SHA256_CRYPT: ShaCryptVariant = {
  id: '5',
  algorithm: 'sha256',
  size: 32,
  order: [
    [0, 10, 20],
    [21, 1, 11],
    [12, 22, 2],
    [3, 13, 23],
    [24, 4, 14],
    [15, 25, 5],
    [6, 16, 26],
    [27, 7, 17],
    [18, 28, 8],
    [9, 19, 29],
  ],
  tail: (d) => encode24(0, d[31]!, d[30]!, 3),
};

const SHA512_CRYPT: ShaCryptVariant = {
  id: '6',
  algorithm: 'sha512',
  size: 64,
  order: [
    [0, 21, 42],
    [22, 43, 1],
    [44, 2, 23],
    [3, 24, 45],
    [25, 46, 4],
    [47, 5, 26],
    [6, 27, 48],
    [28, 49, 7],
    [50, 8, 29],
    [9, 30, 51],
    [31, 52, 10],
    [53, 11, 32],
    [12, 33, 54],
    [34, 55, 13],
    [56, 14, 35],
    [15, 36, 57],
    [37, 58, 16],
    [59, 17, 38],
    [18, 39, 60],
    [40, 61, 19],
    [62, 20, 41],
  ],
  tail: (d) => encode24(0, 0, d[63]!, 2),
};

/** Three bytes as `chars` characters, least significant 6 bits first. */
function encode24(b2: number, b1: number, b0: number, chars: number): string {
  let w = (b2 << 16) | (b1 << 8) | b0;
  let out = '';
  for (let i = 0; i < chars; i++) {
    out += ITOA64[w & 0x3f];
    w >>>= 6;
  }
  return out;
}

function encodeShaCrypt(v: ShaCryptVariant, d: Buffer): string {
  let out = '';
  for (const [a, b, c] of v.order) out += encode24(d[a]!, d[b]!, d[c]!, 4);
  return out + v.tail(d);
}

/** `len` bytes of `block` repeated: the "P sequence"/"S sequence" of the algorithm. */
function repeatTo(block: Buffer, len: number): Buffer {
  const out = Buffer.alloc(len);
  for (let i = 0; i < len; i += block.length) block.copy(out, i, 0, Math.min(block.length, len - i));
  return out;
}

async function shaCryptDigest(
  v: ShaCryptVariant,
  password: Buffer,
  salt: Buffer,
  rounds: number,
): Promise<Buffer> {
  const H = (...parts: Buffer[]) => digestOnce(v.algorithm, Buffer.concat(parts), 'buffer');
  const plen = password.length;

  // Digest B = H(P S P); digest A = H(P S, then B for each whole block of the password's length and
  // the leading bytes of B for the rest, then per bit of the length from the lowest: B for 1, P for 0).
  const b = H(password, salt, password);
  const a = createHash(v.algorithm).update(password).update(salt);
  let n = plen;
  for (; n > v.size; n -= v.size) a.update(b);
  a.update(b.subarray(0, n));
  for (let bits = plen; bits > 0; bits >>= 1) a.update(bits & 1 ? b : password);
  let c = a.digest();

  // P sequence: H(P repeated |P| times) stretched to |P| bytes; S sequence: H(S repeated 16 + A[0]
  // times) cut to |S| bytes.
  const dp = createHash(v.algorithm);
  for (let i = 0; i < plen; i++) dp.update(password);
  const p = repeatTo(dp.digest(), plen);
  const ds = createHash(v.algorithm);
  for (let i = 0; i < 16 + c[0]!; i++) ds.update(salt);
  const s = ds.digest().subarray(0, salt.length);

  // The rounds: one reusable buffer, one one-shot digest per round.
  const buf = Buffer.alloc(2 * plen + salt.length + 2 * v.size + plen);
  const put = (part: Buffer, at: number) => {
    buf.set(part, at);
    return at + part.length;
  };
  for (let i = 0; i < rounds; i++) {
    let o = put(i & 1 ? p : c, 0);
    if (i % 3 !== 0) o = put(s, o);
    if (i % 7 !== 0) o = put(p, o);
    o = put(i & 1 ? c : p, o);
    c = digestOnce(v.algorithm, buf.subarray(0, o), 'buffer');
    if (i % ROUNDS_PER_SLICE === ROUNDS_PER_SLICE - 1) await pause();
  }
  return c;
}

const SHA_CRYPT = /^\$([56])\$(?:rounds=(\d{1,9})\$)?([^$:\n]*)\$([./0-9A-Za-z]+)$/;

async function verifyShaCrypt(stored: string, password: string): Promise<boolean> {
  const m = SHA_CRYPT.exec(stored);
  if (!m) return false;
  const v = m[1] === '5' ? SHA256_CRYPT : SHA512_CRYPT;
  const checksum = m[4]!;
  if (checksum.length !== (v.size === 32 ? 43 : 86)) return false;
  const salt = Buffer.from(m[3]!, 'utf8');
  if (salt.length > SHA_CRYPT_MAX_SALT) return false;
  // glibc writes the rounds clamped to [1000, 999999999]; a value below the minimum never came
  // out of crypt(), so it cannot match what crypt() would produce now.
  const rounds = m[2] === undefined ? SHA_CRYPT_DEFAULT_ROUNDS : Number(m[2]);
  if (rounds < SHA_CRYPT_MIN_ROUNDS || rounds > SHA_CRYPT_MAX_ROUNDS) return false;
  if (m[2] !== undefined && String(rounds) !== m[2]) return false; // leading zeros: not crypt()'s output
  const digest = await shaCryptDigest(v, Buffer.from(password, 'utf8'), salt, rounds);
  return sameText(encodeShaCrypt(v, digest), checksum);
}

/**
 * crypt(3) with a `$5$…` or `$6$…` setting (`$6$salt`, `$6$rounds=N$salt`, or a whole hash): the
 * complete hash string as glibc would produce it. Exported for tests and for makeCryptHash.
 */
export async function shaCrypt(password: string, setting: string): Promise<string> {
  const m = /^\$([56])\$(?:rounds=(\d+)\$)?([^$]*)/.exec(setting);
  if (!m) throw new ParameterError('A SHA-crypt setting starts with $5$ or $6$');
  const v = m[1] === '5' ? SHA256_CRYPT : SHA512_CRYPT;
  let rounds = m[2] === undefined ? SHA_CRYPT_DEFAULT_ROUNDS : Number(m[2]);
  rounds = Math.min(Math.max(rounds, SHA_CRYPT_MIN_ROUNDS), 999_999_999);
  if (rounds > SHA_CRYPT_MAX_ROUNDS) throw new ParameterError(`More than ${SHA_CRYPT_MAX_ROUNDS} rounds`);
  const salt = m[3]!.slice(0, SHA_CRYPT_MAX_SALT);
  const digest = await shaCryptDigest(v, Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), rounds);
  const prefix = m[2] === undefined ? `$${v.id}$` : `$${v.id}$rounds=${rounds}$`;
  return `${prefix}${salt}$${encodeShaCrypt(v, digest)}`;
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
  try {
    return await bcrypt.compare(password, stored);
  } catch {
    return false;
  }
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

/** phpass's encode64: little-endian 6-bit groups over 3-byte blocks. */
function phpassEncode64(input: Buffer): string {
  let out = '';
  let i = 0;
  const count = input.length;
  while (i < count) {
    let value = input[i++]!;
    out += ITOA64[value & 0x3f];
    if (i < count) value |= input[i]! << 8;
    out += ITOA64[(value >> 6) & 0x3f];
    if (i++ >= count) break;
    if (i < count) value |= input[i]! << 16;
    out += ITOA64[(value >> 12) & 0x3f];
    if (i++ >= count) break;
    out += ITOA64[(value >> 18) & 0x3f];
  }
  return out;
}

async function phpassDigest(password: Buffer, salt: string, log2: number): Promise<string> {
  let h = digestOnce('md5', Buffer.concat([Buffer.from(salt, 'latin1'), password]), 'buffer');
  const count = 2 ** log2;
  for (let i = 0; i < count; i++) {
    h = digestOnce('md5', Buffer.concat([h, password]), 'buffer');
    if (i % (4 * ROUNDS_PER_SLICE) === 4 * ROUNDS_PER_SLICE - 1) await pause();
  }
  return phpassEncode64(h);
}

async function verifyPhpass(stored: string, password: string): Promise<boolean> {
  const m = PHPASS.exec(stored);
  if (!m) return false;
  const log2 = ITOA64.indexOf(m[2]!);
  if (log2 < PHPASS_MIN_LOG2 || log2 > PHPASS_MAX_LOG2) return false;
  const actual = await phpassDigest(Buffer.from(password, 'utf8'), m[3]!, log2);
  return sameText(actual, m[4]!);
}

// ---------------------------------------------------------------------------------------------

/** OTRS and other PHP applications keep an unsalted SHA-256 as 64 hex digits; privacyIDEA accepts it. */
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * True when `password` matches the stored hash. Recognised: `$6$`/`$5$` SHA-crypt (with and
 * without `rounds=`), bcrypt `$2a$/$2b$/$2y$`, `{SSHA}`, `{SSHA256}`, `{SSHA512}`, `{SHA}`,
 * `{SHA256}`, `{SHA512}`, `{CRYPT}` + a crypt hash, phpass `$P$`/`$H$`, argon2id PHC strings and
 * 64 hex digits (unsalted SHA-256). Anything else — `x`, `*`, `!…`, empty, unknown — is false.
 */
export async function verifyCryptHash(stored: string, password: string): Promise<boolean> {
  if (typeof stored !== 'string' || typeof password !== 'string') return false;
  // CHAR columns come back padded with blanks; no format above contains whitespace.
  let h = stored.trim();
  if (/^\{CRYPT\}/i.test(h)) {
    h = h.slice(7);
    if (!h.startsWith('$')) return false; // DES crypt and friends: not supported
  }
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
  BCRYPT: (pw) => bcrypt.hash(pw, BCRYPT_NEW_COST),
  SHA512CRYPT: (pw) => shaCrypt(pw, `$6$${randomCryptSalt(16)}`),
  SHA256CRYPT: (pw) => shaCrypt(pw, `$5$${randomCryptSalt(16)}`),
  PHPASS: async (pw) => {
    const salt = randomCryptSalt(8);
    return `$P$${ITOA64[PHPASS_NEW_LOG2]}${salt}${await phpassDigest(Buffer.from(pw, 'utf8'), salt, PHPASS_NEW_LOG2)}`;
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
  return make(password);
}
