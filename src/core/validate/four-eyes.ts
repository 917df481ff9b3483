// The two-man rule of the 4eyes token (src/tokens/four-eyes.ts): which tokens of the required
// realms the passwords presented to a 4eyes token belong to. Each password is tried, like a
// PIN+OTP login, against the assigned tokens of the realms that still lack some (never a token
// that itself checks other tokens, never a token presented already); the first token it opens
// counts for that realm. The check (PIN, OTP, consuming the value, so that a value counts once) is
// a parameter; the token list passes presentedTokenCheck.
//
// Cost: a password is tried against every token of a realm until one matches, so a 4eyes token
// suits realms with few tokens (the people allowed to approve), as in privacyIDEA.
import {
  type Eyes,
  missingEyes,
  newEyes,
  parseEyes,
  requirementsOf,
  separatorOf,
} from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { consumeOtp, type LoadedToken, loadRows, pinMatches, tokenState } from '../token/index.ts';
import { succeeded } from './counting.ts';
import { splitPass } from './pass.ts';
import { unusable } from './usable.ts';

/** Whether a password opens a token (and consumes its OTP when it does). */
export type PasswordCheck = (t: LoadedToken, pass: string) => Promise<boolean>;

export interface EyesOutcome {
  /** The tokens presented so far, this request's included. */
  eyes: Eyes;
  /** Whether this request added a token. */
  progressed: boolean;
  /** Whether the rule is met (never for a token whose `4eyes` info names no realm). */
  met: boolean;
  /** What each realm still lacks. */
  missing: Map<string, number>;
  /** privacyIDEA's `foureyes` detail for a shortfall: `Only found <n> tokens in realm <realm>`. */
  shortfall: string | undefined;
}

async function tokensInRealm(rt: Runtime, realm: string): Promise<LoadedToken[]> {
  const rows = await rt.store.db
    .selectFrom('token')
    .selectAll()
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('tokenrealm')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .select('tokenrealm.token_id')
        .where('realm.name', '=', realm),
    )
    // Only tokens somebody owns: the rule is about people.
    .where('id', 'in', (eb) => eb.selectFrom('tokenowner').select('token_id'))
    .orderBy('serial')
    .execute();
  return (await loadRows(rt, rows)).filter((t) => !t.type.checksOtherTokens);
}

/**
 * How a 4eyes token checks the password of a token presented to it: the token's own PIN and OTP
 * in one step (no challenge, no policies of the request), consuming the value.
 */
export function presentedTokenCheck(rt: Runtime, prependPin: boolean, noCounter: boolean): PasswordCheck {
  return async (t, pass) => {
    if (Number(t.row.revoked) === 1 || unusable(t, rt.clock()) || t.type.checksOtherTokens) return false;
    const parts = splitPass(t, pass, prependPin);
    if (!parts || !(await pinMatches(t, parts.pin, rt))) return false;
    const match = t.type.checkOtp(tokenState(rt, t), parts.otp, rt.clock());
    if (!match || !(await consumeOtp(rt, t, match.newCount, match.newKey))) return false;
    return (await succeeded(rt, t, match.info, noCounter)) === undefined;
  };
}

/** The passwords a pass presents to a 4eyes token (split by its separator). */
export function passwordsOf(rt: Runtime, t: LoadedToken, pass: string): string[] {
  return pass.split(separatorOf(tokenState(rt, t))).filter((p) => p !== '');
}

/** Presents passwords to the 4eyes token `t`, after the tokens of `before` (a challenge's data). */
export async function presentEyes(
  rt: Runtime,
  t: LoadedToken,
  passwords: readonly string[],
  before: string | Eyes,
  check: PasswordCheck,
): Promise<EyesOutcome> {
  const required = requirementsOf(tokenState(rt, t));
  const eyes = typeof before === 'string' ? parseEyes(before) : newEyes(before);
  const used = new Set(Object.values(eyes).flat());
  const realmTokens = new Map<string, LoadedToken[]>();
  let progressed = false;
  for (const pass of passwords) {
    search: for (const realm of missingEyes(required, eyes).keys()) {
      let candidates = realmTokens.get(realm);
      if (!candidates) {
        candidates = await tokensInRealm(rt, realm);
        realmTokens.set(realm, candidates);
      }
      for (const c of candidates) {
        if (used.has(c.row.serial)) continue;
        if (await check(c, pass)) {
          eyes[realm] = [...(eyes[realm] ?? []), c.row.serial];
          used.add(c.row.serial);
          progressed = true;
          break search;
        }
      }
    }
  }
  const missing = missingEyes(required, eyes);
  const first = [...missing.keys()][0];
  const shortfall =
    first === undefined ? undefined : `Only found ${eyes[first]?.length ?? 0} tokens in realm ${first}`;
  return { eyes, progressed, met: required.size > 0 && missing.size === 0, missing, shortfall };
}
