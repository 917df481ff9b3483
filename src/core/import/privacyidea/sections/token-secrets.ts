// What each token type keeps where, privacyIDEA's way and authsrv's: the secret privacyIDEA
// encrypted in key_enc (and user_pin, tokeninfo) becomes the key authsrv seals for the type
// (src/tokens/<type>.ts) and the tokeninfo it reads. One converter per type; a type without one
// is reported as not imported.
import { encodeTans, motpKey } from '../../../../tokens/index.ts';
import type { TokenInfoEntry } from '../../../token/index.ts';
import type { OpenKeyValue } from './pi-values.ts';

/** A privacyIDEA token's secrets, opened. */
export interface PiSecrets {
  serial: string;
  /** The plaintext of key_enc (UTF-8). */
  plaintext: string;
  /** The plaintext of user_pin, when set. */
  userPin: string | undefined;
  /** The tokeninfo, `password` values opened. */
  info: readonly OpenKeyValue[];
}

/** authsrv's key (undefined: none) and tokeninfo of a token, or why it cannot be imported. */
export type Converted = { key: Buffer | undefined; info: TokenInfoEntry[] } | { reason: string };

type Converter = (t: PiSecrets) => Converted;

/** The tokeninfo as authsrv stores it: `password` values sealed again, the keys in `drop` left out. */
export function carriedInfo(
  info: readonly OpenKeyValue[],
  drop: ReadonlySet<string> = new Set(),
): TokenInfoEntry[] {
  return info
    .filter((e) => !drop.has(e.key) && e.value !== undefined)
    .map((e) => ({ key: e.key, value: e.value as string, type: e.secret ? 'password' : '' }));
}

/** HMAC types: privacyIDEA stores the seed as hex text, authsrv the seed's bytes. */
const hexSeed: Converter = (t) => {
  if (!/^([0-9a-fA-F]{2})*$/.test(t.plaintext)) return { reason: 'its seed is not hex text' };
  return { key: Buffer.from(t.plaintext, 'hex'), info: carriedInfo(t.info) };
};

/** Static secrets (pw, registration, indexedsecret): the text itself. */
const text: Converter = (t) => ({ key: Buffer.from(t.plaintext, 'utf8'), info: carriedInfo(t.info) });

/** spass: no secret (privacyIDEA's random key is never used). */
const none: Converter = (t) => ({ key: undefined, info: carriedInfo(t.info) });

/** mOTP: the secret with the mOTP PIN privacyIDEA keeps in user_pin, sealed together. */
const motp: Converter = (t) => {
  if (t.userPin === undefined) return { reason: 'it has no mOTP PIN (user_pin)' };
  if (!/^[0-9a-fA-F]+$/.test(t.plaintext)) return { reason: 'its mOTP secret is not hex text' };
  return { key: motpKey(t.plaintext, t.userPin), info: carriedInfo(t.info) };
};

/** Questionnaire: privacyIDEA's answers are `password` tokeninfo keyed by question; authsrv seals them as the key. */
const question: Converter = (t) => {
  const answers = t.info.filter((e) => e.secret);
  if (answers.some((e) => e.value === undefined)) return { reason: 'an answer does not decrypt' };
  const questions = Object.fromEntries(answers.map((e) => [e.key, e.value as string]));
  const drop = new Set(answers.map((e) => e.key));
  return { key: Buffer.from(JSON.stringify(questions), 'utf8'), info: carriedInfo(t.info, drop) };
};

const SSH_PARTS = ['ssh_type', 'ssh_key', 'ssh_comment'];

/** SSH key: privacyIDEA splits the public key into three tokeninfo entries, authsrv keeps the line (`sshkey`). */
const sshkey: Converter = (t) => {
  const part = (k: string) => t.info.find((e) => e.key === k)?.value ?? '';
  const [type, key, comment] = SSH_PARTS.map(part) as [string, string, string];
  if (!type || !key) return { reason: 'it holds no public key' };
  const line = [type, key, comment].filter((s) => s !== '').join(' ');
  return {
    key: undefined,
    info: [...carriedInfo(t.info, new Set(SSH_PARTS)), { key: 'sshkey', value: line, type: '' }],
  };
};

const TAN_KEY = /^tan\.tan(\d+)$/;

/**
 * TAN list: privacyIDEA keeps the unused TANs as salted hashes (tokeninfo tan.tan<i>), which
 * authsrv's tan type takes as entries of its list (src/tokens/tan.ts).
 */
const tan: Converter = (t) => {
  const entries = t.info
    .map((e) => ({ e, index: TAN_KEY.exec(e.key)?.[1] }))
    .filter((x) => x.index !== undefined)
    .sort((a, b) => Number(a.index) - Number(b.index));
  const tans = entries.map((x) => x.e.value ?? '');
  const drop = new Set(entries.map((x) => x.e.key));
  return { key: tans.length > 0 ? encodeTans(tans) : undefined, info: carriedInfo(t.info, drop) };
};

const CONVERTERS: Readonly<Record<string, Converter>> = {
  hotp: hexSeed,
  totp: hexSeed,
  daypassword: hexSeed,
  email: hexSeed,
  sms: hexSeed,
  paper: hexSeed,
  pw: text,
  registration: text,
  indexedsecret: text,
  spass: none,
  motp,
  question,
  sshkey,
  tan,
};

/** The converter of a privacyIDEA type, or why the type is not imported (`known`: authsrv has the type). */
export function converterOf(type: string, known: boolean): Converter | string {
  const c = CONVERTERS[type];
  if (c && known) return c;
  if (!known) return `authsrv has no ${type} token type`;
  return `the import does not carry ${type} tokens over yet`;
}
