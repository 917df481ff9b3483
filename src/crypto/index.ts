// Keys, sealing, hashing and signing: the security module, password and PIN hashes, stored
// password formats, JWT verification and the signatures of answers and audit rows.
export { signBatch, verifyBatchSignature } from './batch-signature.ts';
export { isCryptHashType, makeCryptHash, verifyCryptHash } from './crypt-hashes.ts';
export { ensureDataDir } from './data-dir-files.ts';
export { decoyLike } from './decoy-hash.ts';
export { hashesStarted } from './hash-slots.ts';
export { verifiedClaims } from './jwt-verify.ts';
export { decoyHash, hashPassword, needsRehash, verifyPassword } from './password-hash.ts';
export { MAX_PASSWORD_LENGTH } from './password-length.ts';
export { MAX_PBKDF2_ITERATIONS, pbkdf2Key } from './pbkdf2.ts';
export { pythonJsonDumps, pythonJsonMembers, pythonJsonObject } from './python-json.ts';
export { cryptoRandom, type Random } from './random.ts';
export { SecurityModule } from './security-module.ts';
export { keyFiles, loadServerKeys, type ServerKeys } from './server-keys.ts';
export { Signer } from './signer.ts';
