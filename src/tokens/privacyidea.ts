// What a token type reads when a privacyIDEA token of its name is imported (`fromPrivacyidea`),
// and the helpers the types share for it. privacyIDEA keeps a token's secret in key_enc as text
// (the hex of a seed, a password …), an mOTP PIN in user_pin and the rest in tokeninfo; each type
// turns that into the key authsrv seals for it and the tokeninfo it reads. The import opens the
// values (src/core/import/privacyidea/sections/tokens.ts) and stores what the type returns.

/** A tokeninfo entry of privacyIDEA, its `password` value opened (undefined: does not decrypt). */
export interface PrivacyideaInfo {
  key: string;
  value: string | undefined;
  secret: boolean;
}

/** A privacyIDEA token's secrets, opened. */
export interface PrivacyideaStoredToken {
  serial: string;
  /** The plaintext of key_enc (UTF-8); empty for a type without a secret. */
  plaintext: string;
  /** The plaintext of user_pin, when set. */
  userPin: string | undefined;
  info: readonly PrivacyideaInfo[];
}

/** A tokeninfo entry as authsrv stores it (`password`: sealed again). */
export interface CarriedInfo {
  key: string;
  value: string;
  type: '' | 'password';
}

/** Something of the token authsrv keeps no place for: reported, the token imported without it. */
export interface LeftOut {
  /** What, after the serial (`privatekey`). */
  what: string;
  reason: string;
}

/** authsrv's key (undefined: none) and tokeninfo of a token, or why it cannot be imported. */
export type PrivacyideaConversion =
  | {
      key: Buffer | undefined;
      info: CarriedInfo[];
      leftOut?: LeftOut[];
      /** Whether the key holds user_pin (mOTP's PIN); otherwise a user_pin is reported as left out. */
      keepsUserPin?: boolean;
    }
  | { reason: string };

/** The tokeninfo as authsrv stores it: `password` values sealed again, the keys in `drop` left out. */
export function carriedInfo(
  info: readonly PrivacyideaInfo[],
  drop: ReadonlySet<string> = new Set(),
): CarriedInfo[] {
  return info
    .filter((e) => !drop.has(e.key) && e.value !== undefined)
    .map((e) => ({ key: e.key, value: e.value as string, type: e.secret ? 'password' : '' }));
}

/** The value of a tokeninfo key ('' when absent). */
export function infoValue(stored: PrivacyideaStoredToken, key: string): string {
  return stored.info.find((e) => e.key === key)?.value ?? '';
}

/**
 * HMAC and AES types: privacyIDEA stores the seed as hex text (either case), authsrv the seed's
 * bytes. `bytes`: the length the type requires (yubikey: an AES-128 key).
 */
export function hexSeed(stored: PrivacyideaStoredToken, bytes?: number): PrivacyideaConversion {
  if (!/^([0-9a-fA-F]{2})*$/.test(stored.plaintext)) return { reason: 'its seed is not hex text' };
  const key = Buffer.from(stored.plaintext, 'hex');
  if (bytes !== undefined && key.length !== bytes)
    return { reason: `its key is not ${bytes * 2} hex characters` };
  return { key, info: carriedInfo(stored.info) };
}

/** Static secrets (pw, registration, applspec, indexedsecret): the text itself. */
export function textSecret(stored: PrivacyideaStoredToken): PrivacyideaConversion {
  return { key: Buffer.from(stored.plaintext, 'utf8'), info: carriedInfo(stored.info) };
}

/** Types without a secret (privacyIDEA's random or empty key_enc is never used): the tokeninfo. */
export function noSecret(stored: PrivacyideaStoredToken): PrivacyideaConversion {
  return { key: undefined, info: carriedInfo(stored.info) };
}
