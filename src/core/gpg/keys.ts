// GnuPG private keys that decrypt PGP-encrypted token files. A key is imported from its ASCII
// armor (`authsrv gpg import-key`): its passphrase is removed with openpgp.js and the bare key is
// sealed by the security module like every other secret at rest (table gpgkey). GET
// /system/gpgkeys lists their public keys next to those of the GnuPG home, so that a vendor can
// encrypt seed files to them.
import * as openpgp from 'openpgp';
import { ConfigAdminError, ParameterError } from '../../errors.ts';
import { runTransaction } from '../../store/index.ts';
import type { Context } from '../context.ts';
import { type GpgKey, homeKeys } from './home.ts';

/**
 * The largest armored private key taken: an RSA-4096 key with its subkey is about 7 KiB; sealed,
 * 40 KiB stay below what a MariaDB TEXT column holds (64 KiB).
 */
export const MAX_KEY_ARMOR = 40 * 1024;

/** A stored key as `authsrv gpg list` shows it. */
export interface StoredGpgKey {
  keyid: string;
  fingerprint: string;
  userids: string[];
  created: string;
}

const hexId = (id: openpgp.KeyID) => id.toHex().toUpperCase();

/** The private key of an ASCII armor, with its passphrase removed; clear errors for anything else. */
async function readPrivateKey(armor: string, passphrase: string | undefined): Promise<openpgp.PrivateKey> {
  if (armor.length > MAX_KEY_ARMOR)
    throw new ParameterError(`The key file is larger than ${MAX_KEY_ARMOR} bytes.`);
  let key: openpgp.PrivateKey;
  try {
    key = await openpgp.readPrivateKey({ armoredKey: armor });
  } catch (e) {
    throw new ParameterError(`The file holds no ASCII-armored PGP private key: ${(e as Error).message}`);
  }
  if (!key.isDecrypted()) {
    if (!passphrase) throw new ParameterError('The private key is protected by a passphrase; give it.');
    try {
      key = await openpgp.decryptKey({ privateKey: key, passphrase });
    } catch (e) {
      throw new ParameterError(`The passphrase does not unlock the private key: ${(e as Error).message}`);
    }
  }
  try {
    await key.getEncryptionKey();
  } catch (e) {
    throw new ParameterError(`The key cannot decrypt anything: ${(e as Error).message}`);
  }
  return key;
}

/** Whether the armored private key is protected by a passphrase (a front end then asks for it). */
export async function gpgKeyIsProtected(armor: string): Promise<boolean> {
  if (armor.length > MAX_KEY_ARMOR) return false;
  try {
    return !(await openpgp.readPrivateKey({ armoredKey: armor })).isDecrypted();
  } catch {
    return false;
  }
}

/**
 * Imports (or replaces, by key id) an armored private key; the passphrase, when the key has one,
 * unlocks it. Only the key's bare form sealed by the security module is stored.
 */
export async function importGpgKey(
  ctx: Context,
  armor: string,
  passphrase: string | undefined,
): Promise<StoredGpgKey> {
  const key = await readPrivateKey(armor, passphrase);
  const keyid = hexId(key.getKeyID());
  const fingerprint = key.getFingerprint().toUpperCase();
  const userids = key.getUserIDs();
  const row = {
    fingerprint,
    userids: userids.join('\n').slice(0, 2000),
    public_armor: key.toPublic().armor(),
    private_key: ctx.hsm.encrypt(key.armor()),
    created_at: ctx.clock().toISOString(),
  };
  await runTransaction(ctx.store, async (trx) => {
    const found = await trx.selectFrom('gpgkey').select('id').where('keyid', '=', keyid).executeTakeFirst();
    if (found) await trx.updateTable('gpgkey').set(row).where('id', '=', found.id).execute();
    else
      await trx
        .insertInto('gpgkey')
        .values({ keyid, ...row })
        .execute();
  });
  return { keyid, fingerprint, userids, created: row.created_at };
}

/** The imported private keys (their public facts only), by key id. */
export async function listImportedKeys(ctx: Context): Promise<StoredGpgKey[]> {
  const rows = await ctx.store.db
    .selectFrom('gpgkey')
    .select(['keyid', 'fingerprint', 'userids', 'created_at'])
    .orderBy('keyid')
    .execute();
  return rows.map((r) => ({
    keyid: r.keyid,
    fingerprint: r.fingerprint,
    userids: r.userids === '' ? [] : r.userids.split('\n'),
    created: r.created_at,
  }));
}

/**
 * GET /system/gpgkeys (reference 8.1): `{keyid: {armor, fingerprint}}` of the GnuPG home's public
 * keys and of the imported keys' public parts; `{}` when there are none.
 */
export async function gpgKeys(ctx: Context): Promise<Record<string, GpgKey>> {
  const out = await homeKeys(ctx);
  const rows = await ctx.store.db
    .selectFrom('gpgkey')
    .select(['keyid', 'fingerprint', 'public_armor'])
    .orderBy('keyid')
    .execute();
  for (const r of rows) out[r.keyid] ??= { armor: r.public_armor, fingerprint: r.fingerprint };
  return out;
}

/** The imported private keys, unsealed in memory. */
async function importedPrivateKeys(ctx: Context): Promise<openpgp.PrivateKey[]> {
  const rows = await ctx.store.db
    .selectFrom('gpgkey')
    .select(['keyid', 'private_key'])
    .orderBy('keyid')
    .execute();
  const keys: openpgp.PrivateKey[] = [];
  for (const r of rows) {
    const armor = ctx.hsm.decrypt(r.private_key);
    try {
      keys.push(await openpgp.readPrivateKey({ armoredKey: armor }));
    } catch (e) {
      throw new ConfigAdminError(`The stored GnuPG key ${r.keyid} cannot be read: ${(e as Error).message}`);
    }
  }
  return keys;
}

/** The first bytes of an ASCII-armored PGP message, as privacyIDEA's GPGImport recognises it. */
const PGP_MESSAGE = '-----BEGIN PGP MESSAGE-----';

/** Whether a token file is an ASCII-armored PGP message (leading white space allowed). */
export function isPgpMessage(content: string): boolean {
  return content.trimStart().startsWith(PGP_MESSAGE);
}

/**
 * The clear text of a token file: an ASCII-armored PGP message is decrypted with the imported
 * private keys; any other content is returned as it is. A message none of the keys opens, or that
 * is no PGP message after all, is a ParameterError.
 */
export async function decryptTokenFile(ctx: Context, content: string): Promise<string> {
  if (!isPgpMessage(content)) return content;
  let message: openpgp.Message<string>;
  try {
    message = await openpgp.readMessage({ armoredMessage: content.trimStart() });
  } catch (e) {
    throw new ParameterError(`The token file is no readable PGP message: ${(e as Error).message}`);
  }
  const ids = message.getEncryptionKeyIDs();
  const recipients = ids.map(hexId);
  // A hidden recipient (gpg --throw-keyids) is the wildcard key id: every key is tried.
  const hidden = recipients.includes('0000000000000000');
  const usable = (await importedPrivateKeys(ctx)).filter(
    (k) => hidden || k.getKeys().some((sub) => recipients.includes(hexId(sub.getKeyID()))),
  );
  if (usable.length === 0) {
    throw new ParameterError(
      `The token file is PGP-encrypted to ${recipients.join(', ') || 'no key id'}; no imported GnuPG private key matches (authsrv gpg import-key).`,
    );
  }
  try {
    const { data } = await openpgp.decrypt({ message, decryptionKeys: usable, format: 'utf8' });
    return data;
  } catch (e) {
    throw new ParameterError(`The PGP-encrypted token file could not be decrypted: ${(e as Error).message}`);
  }
}
