// SHA-crypt ($5$ sha256-crypt, $6$ sha512-crypt), after Ulrich Drepper's "Unix crypt using
// SHA-256 and SHA-512" (the algorithm glibc, passlib and `openssl passwd -5/-6` implement): the
// computation alone, synchronous, for the hash workers (hash-worker.ts). Parsing a stored hash and
// bounding its work factor are crypt-hashes.ts's job. The cost grows with the rounds and with the
// square of the password's length (the "P sequence"), which is why it never runs on the event loop.
import { createHash, hash as digestOnce } from 'node:crypto';
import { ITOA64 } from './crypt-alphabet.ts';

interface ShaCryptVariant {
  algorithm: 'sha256' | 'sha512';
  size: number;
  /** Byte triples of the final digest, in the order Drepper's encoding emits them (4 chars each). */
  order: readonly (readonly [number, number, number])[];
  /** The last, incomplete group. */
  tail: (d: Buffer) => string;
}

const SHA256_CRYPT: ShaCryptVariant = {
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

/** The digest of Drepper's algorithm (steps 1–21) for a password, salt and rounds. */
function shaCryptDigest(v: ShaCryptVariant, password: Buffer, salt: Buffer, rounds: number): Buffer {
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
  }
  return c;
}

/** The length of the checksum part of a `$5$` (43) or `$6$` (86) hash. */
export function shaCryptChecksumLength(id: '5' | '6'): number {
  return id === '5' ? 43 : 86;
}

/**
 * The checksum part of a SHA-crypt hash (what follows the last `$`) of `password` with `salt` (at
 * most 16 bytes, as given) and `rounds`, both already checked by the caller.
 */
export function shaCryptChecksum(id: '5' | '6', password: string, salt: string, rounds: number): string {
  const v = id === '5' ? SHA256_CRYPT : SHA512_CRYPT;
  const digest = shaCryptDigest(v, Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), rounds);
  return encodeShaCrypt(v, digest);
}
