// GnuPG keys (issue 21): the public keys of GET /system/gpgkeys, imported private keys sealed at
// rest, and the decryption of PGP-encrypted token files before they are parsed.
export type { GpgKey } from './home.ts';
export {
  decryptTokenFile,
  gpgKeyIsProtected,
  gpgKeys,
  importGpgKey,
  isPgpMessage,
  listImportedKeys,
  MAX_KEY_ARMOR,
  type StoredGpgKey,
} from './keys.ts';
