// SSH public keys for sshkey tokens: an Ed25519 key made with node:crypto, as an OpenSSH
// authorized_keys line (`ssh-ed25519 <base64 blob> <comment>`).
import { generateKeyPairSync } from 'node:crypto';

function sshString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

/** A fresh Ed25519 public key line. */
export function ed25519PublicKey(comment = 'test@host'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
  return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}
