// Character classes as privacyIDEA's content policies spell them (otp_pin_contents, pw.contents,
// registration.contents): reading a value, checking a string against it with privacyIDEA's
// messages, and drawing a random string that satisfies it. Pure functions, no policy lookup, so
// token types can use them too.
import { randomInt } from 'node:crypto';
import { PolicyError } from '../errors.ts';

/** privacyIDEA's character classes of otp_pin_contents (Python's string.ascii_letters, digits, punctuation). */
export const PIN_CLASSES = {
  c: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  n: '0123456789',
  s: '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
} as const;
type PinClass = keyof typeof PIN_CLASSES;
const CLASS_NAMES: readonly PinClass[] = ['c', 'n', 's'];
const ALL_CHARS = PIN_CLASSES.c + PIN_CLASSES.n + PIN_CLASSES.s;

export const PIN_UNKNOWN_SPECIFIER = 'Unknown character specifier in PIN policy.';
export const PIN_NOT_ALLOWED = 'Not allowed character in PIN!';
export const pinMissing = (charset: string) => `Missing character in PIN: ${charset}`;

/**
 * An otp_pin_contents value as privacyIDEA reads it: the characters a PIN may hold and the
 * character sets of which it must hold at least one character each.
 * - `cn`: any of c+n+s allowed; each listed class is required.
 * - `+cn`: any of c+n+s allowed; one character of the union of the listed classes is required.
 * - `-ns`: only the classes not listed are allowed; nothing is required.
 * - `[abc]`: exactly these characters are allowed; nothing is required.
 * Any other value → PolicyError 303.
 */
export function pinCharsets(policy: string): { allowed: string; required: string[] } {
  if (!/^[+-]*[cns]+$|^\[.*\]+$/.test(policy)) throw new PolicyError(PIN_UNKNOWN_SPECIFIER);
  if (policy[0] === '[') return { allowed: policy.replace(/^[[\]]+|[[\]]+$/g, ''), required: [] };
  const listed = [...policy].filter((ch): ch is PinClass => ch in PIN_CLASSES);
  if (policy[0] === '+')
    return { allowed: ALL_CHARS, required: [listed.map((c) => PIN_CLASSES[c]).join('')] };
  if (policy[0] === '-') {
    const allowed = CLASS_NAMES.filter((c) => !listed.includes(c)).map((c) => PIN_CLASSES[c]);
    return { allowed: allowed.join(''), required: [] };
  }
  return { allowed: ALL_CHARS, required: listed.map((c) => PIN_CLASSES[c]) };
}

/**
 * The failures of a PIN against an otp_pin_contents value, joined with "," as privacyIDEA reports
 * them (`Not allowed character in PIN!` first, then one `Missing character in PIN: …` per unmet
 * requirement); undefined when the PIN satisfies it. An invalid value → PolicyError 303.
 */
export function pinContentsError(pin: string, policy: string): string | undefined {
  const { allowed, required } = pinCharsets(policy);
  const chars = [...pin];
  const parts: string[] = [];
  if (chars.some((ch) => !allowed.includes(ch))) parts.push(PIN_NOT_ALLOWED);
  for (const set of required) if (!chars.some((ch) => set.includes(ch))) parts.push(pinMissing(set));
  return parts.length ? parts.join(',') : undefined;
}

/**
 * A random PIN of the given length that satisfies an otp_pin_contents value: one character of
 * every required set, the rest from the allowed characters. Without a value: letters and digits.
 * An invalid value → PolicyError 303; a value that allows no character → PolicyError 303.
 */
export function randomPin(length: number, contents = '', draw: Draw = randomInt): string {
  const { allowed, required } = contents
    ? pinCharsets(contents)
    : { allowed: PIN_CLASSES.c + PIN_CLASSES.n, required: [] as string[] };
  if (allowed.length === 0) throw new PolicyError(`The PIN policy ${contents} allows no characters.`);
  return randomChars(length, required, allowed, draw);
}

/** A random whole number in [0, max): node:crypto's randomInt, or the Context's in services. */
export type Draw = (max: number) => number;

/**
 * `length` random characters: one of every required alphabet (as far as the length goes), the
 * rest from `allowed`, shuffled so that the required ones are anywhere.
 */
export function randomChars(
  length: number,
  required: readonly string[],
  allowed: string,
  draw: Draw = randomInt,
): string {
  const pick = (alphabet: string) => {
    const chars = [...alphabet];
    return chars[draw(chars.length)]!;
  };
  const chars = required.slice(0, length).map(pick);
  while (chars.length < length) chars.push(pick(allowed));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = draw(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
