// Decoys for unknown users: a stored hash's look-alike with the same scheme and work factor but a
// random salt and checksum. Verifying a password against it costs what verifying against the
// stored hash costs and never succeeds, so that a login for a name nobody has takes as long as a
// wrong password of a real user (no hash is computed to make one).
import { randomInt } from 'node:crypto';
import { ITOA64 } from './crypt-alphabet.ts';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The expensive formats: the part that names scheme and cost, and the alphabet of the rest. */
const SHAPES: readonly [RegExp, string][] = [
  [/^\$[56]\$(?:rounds=\d{1,9}\$)?/, ITOA64],
  [/^\$2[aby]\$\d\d\$/, ITOA64],
  [/^\$[PH]\$[./0-9A-Za-z]/, ITOA64],
  [/^\$argon2id\$v=19\$m=\d{1,10},t=\d{1,10},p=\d{1,10}\$/, BASE64],
];

function randomLike(text: string, alphabet: string): string {
  let out = '';
  for (const c of text) out += c === '$' ? '$' : alphabet[randomInt(alphabet.length)];
  return out;
}

/**
 * A decoy of `stored` (a crypt-style hash as user stores keep it, `{CRYPT}` prefix allowed), or
 * undefined when its format is not an expensive one (the LDAP-style digests and hex SHA-256 cost
 * microseconds: nothing to imitate) or not a hash at all.
 */
export function decoyLike(stored: string): string | undefined {
  const h = stored.trim();
  const crypt = /^\{CRYPT\}/i.exec(h)?.[0] ?? '';
  const body = h.slice(crypt.length);
  for (const [shape, alphabet] of SHAPES) {
    const prefix = shape.exec(body)?.[0];
    if (prefix !== undefined) return crypt + prefix + randomLike(body.slice(prefix.length), alphabet);
  }
  return undefined;
}
