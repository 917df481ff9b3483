// phpass portable hashes ($P$ WordPress, $H$ phpBB): MD5 iterated 2^n times over the previous digest
// and the password. The computation alone, synchronous, for the hash workers (hash-worker.ts);
// parsing a stored hash and bounding its work factor are crypt-hashes.ts's job.
import { hash as digestOnce } from 'node:crypto';
import { ITOA64 } from './crypt-alphabet.ts';

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

/** The checksum part (22 characters) of a phpass hash of `password` with an 8-character salt. */
export function phpassChecksum(password: string, salt: string, log2: number): string {
  const pw = Buffer.from(password, 'utf8');
  let h = digestOnce('md5', Buffer.concat([Buffer.from(salt, 'latin1'), pw]), 'buffer');
  const count = 2 ** log2;
  for (let i = 0; i < count; i++) h = digestOnce('md5', Buffer.concat([h, pw]), 'buffer');
  return phpassEncode64(h);
}
