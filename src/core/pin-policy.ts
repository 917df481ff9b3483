// The OTP PIN rules of the admin and user scopes (reference 3.3, 3.5, 5.5): otp_pin_minlength,
// otp_pin_maxlength and otp_pin_contents checked wherever a PIN is set, and random PINs
// (otp_pin_random on enrollment, otp_pin_set_random for /token/setrandompin).
import { randomInt } from 'node:crypto';
import { actionValue, type Target } from './access.ts';
import type { Context } from './context.ts';
import { PolicyError } from './errors.ts';

/** privacyIDEA's character groups of otp_pin_contents. */
const GROUPS: Record<string, { test: (ch: string) => boolean; chars: string }> = {
  c: { test: (ch) => /[a-zA-Z]/.test(ch), chars: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ' },
  n: { test: (ch) => /[0-9]/.test(ch), chars: '0123456789' },
  s: { test: (ch) => SPECIAL.includes(ch), chars: '.:,;_<>+*!/()[]{}=?$%&-' },
  o: { test: (ch) => !/[a-zA-Z0-9]/.test(ch) && !SPECIAL.includes(ch), chars: '' },
};
const SPECIAL = '.:,;_<>+*!/()[]{}=?$%&-';

export const PIN_CONTENTS_ERROR = 'Not all character groups are contained in the OTP PIN.';

/**
 * Whether a PIN satisfies an otp_pin_contents value: every listed group must occur; with a leading
 * `+` any one of them suffices; with a leading `-` none of them may occur.
 */
export function pinContentsOk(pin: string, policy: string): boolean {
  const mode = policy[0] === '+' || policy[0] === '-' ? policy[0] : '';
  const groups = [...(mode ? policy.slice(1) : policy)].map((g) => GROUPS[g]).filter((g) => g !== undefined);
  if (groups.length === 0) return true;
  const has = (g: (typeof groups)[number]) => [...pin].some((ch) => g.test(ch));
  if (mode === '+') return groups.some(has);
  if (mode === '-') return !groups.some(has);
  return groups.every(has);
}

function intValue(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isInteger(n) ? n : undefined;
}

/** Checks a PIN against the caller's PIN policies for the target (a token owner); PolicyError 303. */
export async function checkPinPolicy(ctx: Context, pin: string, target: Target): Promise<void> {
  const min = intValue(await actionValue(ctx, 'otp_pin_minlength', target));
  if (min !== undefined && pin.length < min) throw new PolicyError(`The minimum OTP PIN length is ${min}`);
  const max = intValue(await actionValue(ctx, 'otp_pin_maxlength', target));
  if (max !== undefined && pin.length > max) throw new PolicyError(`The maximum OTP PIN length is ${max}`);
  const contents = await actionValue(ctx, 'otp_pin_contents', target);
  if (contents && !pinContentsOk(pin, contents)) throw new PolicyError(PIN_CONTENTS_ERROR);
}

/**
 * A random PIN of the length that fits the contents policy when one is given: one character of
 * every required group, the rest from their union (letters and digits by default).
 */
export function randomPin(length: number, contents = ''): string {
  const mode = contents[0] === '+' || contents[0] === '-' ? contents[0] : '';
  const named = [...(mode ? contents.slice(1) : contents)].filter((g) => GROUPS[g]?.chars);
  let pool: string[];
  let required: string[] = [];
  if (mode === '-') {
    pool = ['c', 'n', 's'].filter((g) => !named.includes(g));
    if (pool.length === 0) pool = ['c'];
  } else {
    pool = named.length ? named : ['c', 'n'];
    if (mode === '') required = named;
  }
  const union = pool.map((g) => GROUPS[g]!.chars).join('');
  const chars = required.slice(0, length).map((g) => pick(GROUPS[g]!.chars));
  while (chars.length < length) chars.push(pick(union));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}

function pick(alphabet: string): string {
  return alphabet[randomInt(alphabet.length)]!;
}
