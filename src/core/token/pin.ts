// POST /token/setpin and /token/setrandompin: a PIN set on the selected tokens under the PIN
// rules of each token's owner.
import { ParameterError, TokenAdminError } from '../../errors.ts';
import { actionValue } from '../access/index.ts';
import type { Context } from '../context.ts';
import { ownerUser, targetOfOwner } from './owner.ts';
import { checkPinPolicy, nextPinChange, randomPinFor } from './pin-policy.ts';
import { inTransaction, pick, refuseLocked, type Selection } from './select.ts';
import { type LoadedToken, pinHash, setPin, setTokenInfo } from './store/index.ts';

/** The PIN policies (admin/user scope) for every token's owner; next_pin_change per token. */
export async function pinRules(
  ctx: Context,
  tokens: readonly LoadedToken[],
  pin: string,
): Promise<Map<number, string>> {
  const changes = new Map<number, string>();
  for (const t of tokens) {
    const owner = await ownerUser(ctx, t);
    await checkPinPolicy(ctx, pin, targetOfOwner(owner, t.realms[0]), t.row.tokentype);
    const next = await nextPinChange(ctx, { owner, realm: t.realms[0] });
    if (next !== undefined) changes.set(t.row.id, next);
  }
  return changes;
}

/** POST /token/setpin; `encrypt` (encryptpin=1) stores the PIN sealed instead of hashed. */
export async function setPins(
  ctx: Context,
  sel: Selection,
  otppin: string | undefined,
  encrypt = false,
): Promise<number> {
  if (otppin === undefined) throw ParameterError.missing('otppin');
  const p = await pick(ctx, 'setpin', sel);
  refuseLocked(p.tokens);
  const changes = otppin ? await pinRules(ctx, p.tokens, otppin) : new Map<number, string>();
  await writePins(ctx, p.tokens, otppin, changes, encrypt);
  return p.tokens.length;
}

async function writePins(
  ctx: Context,
  tokens: readonly LoadedToken[],
  pin: string,
  changes: ReadonlyMap<number, string>,
  encrypt = false,
): Promise<void> {
  const hash = await pinHash(pin, encrypt ? ctx : undefined);
  await inTransaction(ctx, async (trx) => {
    for (const t of tokens) {
      await setPin(trx, t.row.id, hash);
      const next = changes.get(t.row.id);
      if (next !== undefined) await setTokenInfo(ctx, trx, t.row.id, { next_pin_change: next });
    }
  });
}

export const EMPTY_RANDOM_PIN = "We have an empty PIN. Please check your policy 'otp_pin_set_random'.";

/**
 * POST /token/setrandompin: a PIN of the otp_pin_set_random length (admin/user scope, for the
 * owner of the first token) is set on every selected token and returned once. A user without
 * tokens gets no PIN: none is set (0), as with setpin.
 */
export async function setRandomPins(ctx: Context, sel: Selection): Promise<{ count: number; pin?: string }> {
  const p = await pick(ctx, 'setrandompin', sel);
  refuseLocked(p.tokens);
  const first = p.tokens[0];
  if (!first) return { count: 0 };
  const target = targetOfOwner(await ownerUser(ctx, first), first.realms[0]);
  const length = Number.parseInt((await actionValue(ctx, 'otp_pin_set_random', target)) ?? '', 10);
  if (!Number.isInteger(length) || length <= 0) throw new TokenAdminError(EMPTY_RANDOM_PIN);
  const pin = await randomPinFor(ctx, length, target, first.row.tokentype);
  const changes = await pinRules(ctx, p.tokens, pin);
  await writePins(ctx, p.tokens, pin, changes);
  return { count: p.tokens.length, pin };
}
