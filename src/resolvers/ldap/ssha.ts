// The {SSHA} password scheme privacyIDEA writes into LDAP (passlib's ldap_salted_sha1): SHA-1 of
// the password and an 8-byte salt, then the salt, base64. OpenLDAP verifies it natively on bind.
import { createHash, randomBytes } from 'node:crypto';

export function sshaHash(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password, 'utf8').update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}
