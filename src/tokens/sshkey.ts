// SSH public key (reference 3.1): the token only holds a public key for the SSH application of
// machines (/machine/authitem), so it never authenticates and never challenges.
import { ParameterError } from '../errors.ts';
import {
  carriedInfo,
  infoValue,
  type PrivacyideaConversion,
  type PrivacyideaStoredToken,
} from './privacyidea.ts';
import { type Enrollment, type EnrollRequest, type OtpMatch, TokenType } from './token-type.ts';

const KEY_TYPE = /^(ssh-rsa|ssh-ed25519|ecdsa-sha2-[a-z0-9-]+)$/;
const FORM = "The sshkey must be of the form '<type> <base64 key> [comment]'";

export interface SshPublicKey {
  keyType: string;
  /** The Base64 of the key blob. */
  key: string;
  comment: string;
}

/**
 * Parses an OpenSSH public key line. The blob must be Base64 whose first field (a length-prefixed
 * string) names the same key type as the line, which rejects mangled or mislabelled keys.
 */
export function parseSshKey(text: string): SshPublicKey {
  const m = /^(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(text.trim());
  if (!m) throw new ParameterError(FORM);
  const [, keyType, key, comment] = m as unknown as [string, string, string, string | undefined];
  if (!KEY_TYPE.test(keyType))
    throw new ParameterError(
      `Unsupported SSH key type '${keyType}': use ssh-rsa, ssh-ed25519 or ecdsa-sha2-*`,
    );
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || key.length % 4 !== 0) throw new ParameterError(FORM);
  const blob = Buffer.from(key, 'base64');
  const n = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  if (n < 0 || 4 + n > blob.length || blob.toString('latin1', 4, 4 + n) !== keyType)
    throw new ParameterError(`The SSH key data does not hold a key of type '${keyType}'`);
  return { keyType, key, comment: (comment ?? '').trim() };
}

/** The tokeninfo entries privacyIDEA splits a public key into. */
const SSH_PARTS = ['ssh_type', 'ssh_key', 'ssh_comment'];

export class SshkeyType extends TokenType {
  readonly type = 'sshkey';
  readonly prefix = 'SSHK';
  readonly description = 'SSH Public Key: The public SSH key.';
  override readonly challengeCapable = false;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const text = req.params.sshkey;
    if (!text) throw ParameterError.missing('sshkey');
    const k = parseSshKey(text);
    const line = [k.keyType, k.key, k.comment].filter((s) => s !== '').join(' ');
    return {
      info: { sshkey: line },
      detail: {},
      ...(k.comment ? { description: k.comment } : {}),
    };
  }

  checkOtp(): OtpMatch | null {
    return null;
  }

  /** privacyIDEA splits the public key into three tokeninfo entries; here it is one line (`sshkey`). */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    const [type, key, comment] = SSH_PARTS.map((k) => infoValue(stored, k)) as [string, string, string];
    if (!type || !key) return { reason: 'it holds no public key' };
    const line = [type, key, comment].filter((s) => s !== '').join(' ');
    return {
      key: undefined,
      info: [...carriedInfo(stored.info, new Set(SSH_PARTS)), { key: 'sshkey', value: line, type: '' }],
    };
  }
}
