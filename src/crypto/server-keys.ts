// The signing key pair (audit rows, responses) and the JWT secret of a data directory.
import { createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readOrCreateSecret } from './data-dir-files.ts';
import { Signer } from './signer.ts';

export interface ServerKeys {
  signer: Signer;
  jwtSecret: Uint8Array;
}

export function loadServerKeys(dir: string): ServerKeys {
  const pem = readOrCreateSecret(dir, 'signing.key', () =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
  const signer = new Signer(createPrivateKey(pem));
  readOrCreateSecret(dir, 'signing.pub', () => signer.publicKeyPem);
  const jwtSecret = readOrCreateSecret(dir, 'jwt.secret', () => randomBytes(64).toString('base64'));
  return { signer, jwtSecret: Buffer.from(jwtSecret.toString('utf8').trim(), 'base64') };
}
