// The offline application (privacyidea/lib/applications/offline.py; reference 6.6): a HOTP token
// attached for offline use hands the client that authenticated with it its next `count` OTP values,
// each hashed with its PIN by PBKDF2-SHA512 in passlib's `$pbkdf2-sha512$` format, so that the client
// (privacyIDEA's credential provider, pam module) can check a login while it cannot reach the
// server; a refill token, rotated at every issue, lets it fetch new values for those it used up.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { pbkdf2Key } from '../crypto/index.ts';
import { ERR, ParameterError } from '../errors.ts';
import type { Issue, IssuingToken, MachineApplication } from './application.ts';

/** privacyIDEA's defaults: 100 values, 6549 rounds of PBKDF2. */
export const OFFLINE_DEFAULTS = { count: 100, rounds: 6549 } as const;

/**
 * At most 500 values of at most 20 000 rounds: every successful authentication hashes `count`
 * values, so the two bound the work one login costs (10 million PBKDF2 iterations, some seconds of
 * a hash thread, never of the event loop; the defaults cost 655 000).
 */
export const OFFLINE_LIMITS = { count: 500, rounds: 20_000 } as const;

/** The tokeninfo key of the refill token (stored sealed: with the password it buys new values). */
export const REFILL_INFO_KEY = 'refilltoken';

/** passlib's "adapted base64": standard base64 with `.` for `+` and no padding. */
export function ab64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/\+/g, '.').replace(/=+$/, '');
}

/** passlib's pbkdf2_sha512 hash of a secret: 10 random bytes of salt, a 64-byte key. */
export async function pbkdf2Sha512(secret: string, rounds: number): Promise<string> {
  const salt = randomBytes(10);
  const key = await pbkdf2Key(Buffer.from(secret, 'utf8'), salt, rounds, 64, 'sha512');
  return `$pbkdf2-sha512$${rounds}$${ab64(salt)}$${ab64(key)}`;
}

function intOption(name: 'count' | 'rounds', value: string | undefined): number {
  if (value === undefined || value === '') return OFFLINE_DEFAULTS[name];
  const n = /^\d{1,7}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!(n >= 1 && n <= OFFLINE_LIMITS[name])) {
    throw new ParameterError(`The option ${name} must be a whole number from 1 to ${OFFLINE_LIMITS[name]}.`);
  }
  return n;
}

/** The count and rounds of an attachment's options (defaults for absent ones). */
export function offlineOptions(options: Readonly<Record<string, string>>): { count: number; rounds: number } {
  return { count: intOption('count', options.count), rounds: intOption('rounds', options.rounds) };
}

/** `n` values from the token's counter, hashed with the PIN, by counter; the counter after them. */
async function hashedValues(token: IssuingToken, n: number, rounds: number) {
  const values = token.counterValues(token.counter, n);
  if (!values) return undefined;
  const response: Record<string, string> = {};
  for (const [i, otp] of values.entries()) {
    const secret = token.prependPin ? token.pin + otp : otp + token.pin;
    response[String(token.counter + i)] = await pbkdf2Sha512(secret, rounds);
  }
  return { response, counter: token.counter + values.length };
}

const newRefillToken = () => randomBytes(40).toString('hex');

const REFILL_REFUSED = 'Token is not an offline token or refill token is incorrect';

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The counter among the last `count` ones (those issued before) whose value is the OTP given, or
 * -1; every candidate is compared, so the time does not tell where it matched.
 */
function issuedCounter(token: IssuingToken, count: number): number {
  const first = Math.max(0, token.counter - count);
  const values = token.counterValues(first, token.counter - first) ?? [];
  let found = -1;
  for (const [i, v] of values.entries()) if (sameText(v, token.otp) && found < 0) found = first + i;
  return found;
}

export const offlineApplication: MachineApplication = {
  name: 'offline',
  tokenTypes: ['hotp'],
  machineOptional: true,
  options: {
    hotp: {
      count: { type: 'int', description: 'The number of OTP values to hand out (default 100).' },
      rounds: { type: 'int', description: 'The PBKDF2 rounds of each hashed value (default 6549).' },
    },
  },

  lookup() {
    return {};
  },

  /** GET /machine/authitem gives no offline items: the values are hashed with the PIN of a login. */
  authItem() {
    return undefined;
  },

  effectiveOptions(options: Readonly<Record<string, string>>) {
    return { ...options, ...offlineOptions(options) };
  },

  checkOption(name: string, value: string) {
    if ((name === 'count' || name === 'rounds') && value !== '') intOption(name, value);
  },

  /** The next `count` values, hashed; a new refill token. */
  async issue(token: IssuingToken): Promise<Issue | undefined> {
    if (!token.active) return undefined;
    const { count, rounds } = offlineOptions(token.options);
    const hashed = await hashedValues(token, count, rounds);
    if (!hashed) return undefined;
    const refilltoken = newRefillToken();
    const owner = token.username !== undefined ? { user: token.username, username: token.username } : {};
    return {
      item: { ...token.options, ...owner, refilltoken, response: hashed.response },
      counter: hashed.counter,
      secretInfo: { [REFILL_INFO_KEY]: refilltoken },
    };
  },

  /**
   * As many new values as were used since the last issue: the OTP given must be one of the values
   * issued (the last `count` counters); the refill token must be the stored one, and is rotated.
   */
  async refill(token: IssuingToken, refillToken: string): Promise<Issue> {
    const stored = token.info[REFILL_INFO_KEY];
    if (!stored || !sameText(stored, refillToken)) throw new ParameterError(REFILL_REFUSED);
    const { count, rounds } = offlineOptions(token.options);
    const matched = issuedCounter(token, count);
    if (matched < 0) throw new ParameterError('You provided a wrong OTP value.', ERR.ValidateDenied);
    const used = matched - Math.max(0, token.counter - count) + 1;
    const hashed = await hashedValues(token, used, rounds);
    if (!hashed) throw new ParameterError(REFILL_REFUSED);
    const refilltoken = newRefillToken();
    return {
      item: { refilltoken, response: hashed.response },
      counter: hashed.counter,
      secretInfo: { [REFILL_INFO_KEY]: refilltoken },
    };
  },
};
