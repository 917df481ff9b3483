// The two-man rule of the 4eyes token (src/tokens/four-eyes.ts): which tokens of the required
// realms the passwords presented to a 4eyes token belong to. Each password is tried, like a
// PIN+OTP login, against the assigned tokens of the realms that still lack some (never a 4eyes
// token, never a token presented already); the first token it opens counts for that realm. The
// check itself (PIN, OTP, consuming the value) is the caller's, so a value counts once.
//
// Cost: a password is tried against every token of a realm until one matches, so a 4eyes token
// suits realms with few tokens (the people allowed to approve), as in privacyIDEA.
import { type Eyes, missingEyes, parseEyes, requirementsOf, separatorOf } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { type LoadedToken, loadRows, tokenState } from '../token/index.ts';

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
    .where('tokentype', '!=', '4eyes')
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
  return loadRows(rt, rows);
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
  const eyes = typeof before === 'string' ? parseEyes(before) : structuredClone(before);
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
