// A token's secrets: the key sealed by the security module, opened only when a type asks for it;
// the PIN stored hashed (argon2id) or, with encrypt_pin, sealed. A hash of other parameters (a
// privacyIDEA import's: m=102400,t=9,p=8, ten times authsrv's cost at every check) is replaced by
// authsrv's own at the first check it passes.
import { createHash, timingSafeEqual } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword } from '../../../crypto/index.ts';
import type { TokenState } from '../../../tokens/index.ts';
import type { Runtime } from '../../context.ts';
import { checkLength, LIMITS } from '../../limits.ts';
import { replacePin } from './token-row.ts';
import type { LoadedToken } from './types.ts';

/** The state a token type works on; the secret is opened only when the type asks for it. */
export function tokenState(rt: Runtime, t: LoadedToken): TokenState {
  let key: Buffer | undefined;
  return {
    serial: t.row.serial,
    type: t.row.tokentype,
    otplen: t.row.otplen,
    count: Number(t.row.count),
    countWindow: t.row.count_window,
    syncWindow: t.row.sync_window,
    info: t.info,
    key() {
      key ??= t.row.key_enc === '' ? Buffer.alloc(0) : Buffer.from(rt.hsm.decrypt(t.row.key_enc), 'hex');
      return key;
    },
  };
}

/** The stored form of a token key: sealed hex, '' for none. */
export function sealKey(rt: Runtime, key: Buffer | undefined): string {
  return key && key.length > 0 ? rt.hsm.encrypt(key.toString('hex')) : '';
}

/** Marks a PIN stored sealed by the security module (encrypt_pin) instead of hashed. */
const SEALED_PIN = '@@';

/**
 * The stored form of a PIN: '' for no PIN, else an argon2id hash, or with `encrypt` (the runtime
 * whose security module seals it; encrypt_pin / encryptpin) `@@` + the sealed PIN.
 */
export async function pinHash(pin: string | undefined, encrypt?: Runtime): Promise<string> {
  if (!pin) return '';
  checkLength('pin', pin, LIMITS.password);
  return encrypt ? SEALED_PIN + encrypt.hsm.encrypt(pin) : hashPassword(pin);
}

/**
 * Whether a PIN matches the token's (a token without PIN accepts only the empty PIN). A sealed
 * PIN is opened with `rt` and compared in constant time (digests of equal length). With `rt`, a
 * matching hash that needsRehash is replaced by authsrv's own (rehashPin).
 */
export async function pinMatches(t: LoadedToken, pin: string, rt?: Runtime): Promise<boolean> {
  const stored = t.row.pin_hash;
  if (stored === '') return pin === '';
  if (stored.startsWith(SEALED_PIN)) {
    if (!rt) return false;
    const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
    return timingSafeEqual(digest(rt.hsm.decrypt(stored.slice(SEALED_PIN.length))), digest(pin));
  }
  const ok = await verifyPassword(pin, stored);
  if (ok && rt && needsRehash(stored)) await rehashPin(rt, t, pin);
  return ok;
}

/**
 * Stores authsrv's hash of a PIN that just matched the token's hash of other parameters, only
 * while the row still holds that hash: a PIN changed in between stays. Never fails the check
 * that asked: the old hash still verifies, and the next match tries again.
 */
async function rehashPin(rt: Runtime, t: LoadedToken, pin: string): Promise<void> {
  try {
    await replacePin(rt.store.db, t.row.id, t.row.pin_hash, await hashPassword(pin));
  } catch (e) {
    rt.log.warn(
      { err: e, serial: t.row.serial },
      "the PIN hash of a token could not be replaced by authsrv's",
    );
  }
}
