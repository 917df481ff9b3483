// The signing key pair (audit rows, responses) and the JWT secret of a data directory.
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readOrCreateSecret, rewriteSecret } from './data-dir-files.ts';
import { KEY_FILE } from './security-module.ts';
import { Signer } from './signer.ts';

export interface ServerKeys {
  signer: Signer;
  jwtSecret: Uint8Array;
}

export const SIGNING_KEY_FILE = 'signing.key';
export const SIGNING_PUB_FILE = 'signing.pub';
export const JWT_SECRET_FILE = 'jwt.secret';

/** The secret key files of a data directory (signing.pub is public). */
export function keyFiles(dir: string): string[] {
  return [KEY_FILE, SIGNING_KEY_FILE, JWT_SECRET_FILE].map((name) => join(dir, name));
}
/** HS256 wants a key at least as long as its hash. */
const MIN_JWT_SECRET_BYTES = 32;

export function loadServerKeys(dir: string): ServerKeys {
  const pem = readOrCreateSecret(dir, SIGNING_KEY_FILE, () =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  );
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (e) {
    throw new Error(`${join(dir, SIGNING_KEY_FILE)} is not a PEM private key: ${(e as Error).message}`);
  }
  if (privateKey.asymmetricKeyType !== 'rsa') {
    throw new Error(`${join(dir, SIGNING_KEY_FILE)} must hold an RSA key`);
  }
  const signer = new Signer(privateKey);
  // signing.pub is derived from signing.key; when a node was given another node's signing.key,
  // its old signing.pub is stale and is rewritten so that clients verify with the right key.
  const pub = readOrCreateSecret(dir, SIGNING_PUB_FILE, () => signer.publicKeyPem);
  if (pub.toString('utf8') !== signer.publicKeyPem) rewriteSecret(dir, SIGNING_PUB_FILE, signer.publicKeyPem);

  const text = readOrCreateSecret(dir, JWT_SECRET_FILE, () => randomBytes(64).toString('base64'))
    .toString('utf8')
    .trim();
  const jwtSecret = Buffer.from(text, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || jwtSecret.length < MIN_JWT_SECRET_BYTES) {
    throw new Error(
      `${join(dir, JWT_SECRET_FILE)} must hold at least ${MIN_JWT_SECRET_BYTES} random bytes in base64`,
    );
  }
  return { signer, jwtSecret };
}
