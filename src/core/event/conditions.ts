// The conditions of event handling definitions (reference 7.1 "Conditions"): one function per
// condition, each answering whether the condition's value holds for the request at hand; all the
// conditions of a definition must hold. The token a condition asks about is read once per request
// and only when a condition needs it.
import { ParameterError } from '../../errors.ts';
import { clientMatches, compileClientList } from '../../policy/index.ts';
import { counterValue, outsideValidityPeriod } from '../token/index.ts';
import { parseLastAuth } from '../validate/index.ts';
import {
  ConditionValueError,
  compareInt,
  compareValues,
  parseAge,
  parseCounterComparison,
  parseIntComparison,
  parseKeyComparison,
} from './comparisons.ts';
import type { EventFacts, Position, TokenFacts } from './facts.ts';

export interface ConditionCheck {
  /** What GET /event/conditions/<module> shows. */
  spec: { type: 'str' | 'text' | 'multi'; desc: string; group: string; value?: readonly string[] };
  /** Only post handlers see the response. */
  postOnly?: boolean;
  holds(value: string, facts: EventFacts): Promise<boolean> | boolean;
  /** Throws ConditionValueError when the value does not follow the condition's grammar. */
  check?(value: string): void;
}

const TRUE_FALSE = ['True', 'False'] as const;

const commaList = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** Whether `actual` is in the comma list `value`. */
const listed = (value: string, actual: string | undefined) =>
  actual !== undefined && commaList(value).includes(actual);

/** `True`/`False` compared with a fact (case-insensitive, as privacyIDEA's is_true). */
const isTrueValue = (value: string) => ['true', '1'].includes(value.trim().toLowerCase());

function regexHolds(value: string, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  try {
    return new RegExp(value).test(actual);
  } catch {
    return false;
  }
}

/** A condition on the request's token; without a token it does not hold. */
function onToken(test: (value: string, token: TokenFacts, facts: EventFacts) => boolean | Promise<boolean>) {
  return async (value: string, facts: EventFacts) => {
    const token = await facts.token();
    return token !== undefined && test(value, token, facts);
  };
}

function checkRegex(value: string): void {
  try {
    new RegExp(value);
  } catch {
    throw new ConditionValueError(`'${value}' is not a valid regular expression`);
  }
}

/** An integer comparison (`<5`, `>5`, `==5`, `!=5`, `5`) on a number of the request's token. */
function tokenNumber(desc: string, of: (token: TokenFacts) => number): ConditionCheck {
  return {
    spec: { type: 'str', desc: `${desc} (<n, >n, ==n, !=n or n).`, group: 'token' },
    check: (value) => {
      parseIntComparison(value);
    },
    holds: onToken((value, token) => compareInt(of(token), parseIntComparison(value))),
  };
}

/** The challenge of the request's transaction_id; without one the condition does not hold. */
function onChallenge(
  test: (value: string, c: { session: string; expiration: string }, now: Date) => boolean,
) {
  return async (value: string, facts: EventFacts) => {
    const challenge = await facts.challenge();
    return challenge !== undefined && test(value, challenge, facts.now);
  };
}

const CONDITIONS: Readonly<Record<string, ConditionCheck>> = {
  realm: {
    spec: { type: 'str', desc: "The user's realm (comma list).", group: 'user' },
    holds: async (value, facts) => listed(value, (await facts.user())?.realm),
  },
  resolver: {
    spec: { type: 'str', desc: "The user's resolver (comma list).", group: 'user' },
    holds: async (value, facts) => listed(value, (await facts.user())?.resolver),
  },
  tokenrealm: {
    spec: { type: 'str', desc: 'One of the token realms (comma list).', group: 'token' },
    holds: onToken((value, token) => token.realms.some((r) => listed(value, r))),
  },
  tokentype: {
    spec: { type: 'str', desc: 'The token type (comma list).', group: 'token' },
    holds: onToken((value, token) => listed(value.toLowerCase(), token.type.toLowerCase())),
  },
  serial: {
    spec: { type: 'str', desc: 'A regular expression the serial must match.', group: 'token' },
    check: checkRegex,
    holds: async (value, facts) => regexHolds(value, (await facts.token())?.serial ?? facts.serial),
  },
  logged_in_user: {
    spec: { type: 'str', desc: 'The role of the logged-in caller.', group: 'user', value: ['admin', 'user'] },
    holds: (value, facts) => facts.role === value,
  },
  client_ip: {
    spec: { type: 'str', desc: 'IP addresses or networks of the client (! excludes).', group: 'misc' },
    check: (value) => {
      try {
        compileClientList(value);
      } catch (e) {
        throw new ConditionValueError(e instanceof Error ? e.message : String(e));
      }
    },
    holds: (value, facts) => {
      try {
        return clientMatches(compileClientList(value), facts.client);
      } catch {
        return false;
      }
    },
  },
  result_value: {
    spec: { type: 'str', desc: 'The result value.', group: 'misc', value: TRUE_FALSE },
    postOnly: true,
    holds: (value, facts) =>
      facts.result !== undefined && isTrueValue(value) === (facts.result.value === true),
  },
  result_status: {
    spec: { type: 'str', desc: 'The result status.', group: 'misc', value: TRUE_FALSE },
    postOnly: true,
    holds: (value, facts) => facts.result !== undefined && isTrueValue(value) === facts.result.status,
  },
  result_authentication: {
    spec: {
      type: 'str',
      desc: 'The result of an authentication.',
      group: 'misc',
      value: ['ACCEPT', 'REJECT', 'CHALLENGE', 'DECLINED'],
    },
    postOnly: true,
    holds: (value, facts) => facts.result?.authentication === value,
  },
  detail_message: {
    spec: { type: 'str', desc: 'A regular expression searched in detail.message.', group: 'misc' },
    postOnly: true,
    check: checkRegex,
    holds: (value, facts) => regexHolds(value, facts.result?.message),
  },
  detail_error_message: {
    spec: { type: 'str', desc: 'A regular expression searched in the error message.', group: 'misc' },
    postOnly: true,
    check: checkRegex,
    holds: (value, facts) => regexHolds(value, facts.result?.error),
  },
  token_locked: {
    spec: {
      type: 'str',
      desc: 'The token has reached its maximum fail count.',
      group: 'token',
      value: TRUE_FALSE,
    },
    holds: onToken((value, token) => isTrueValue(value) === token.failcount >= token.maxfail),
  },
  token_has_owner: {
    spec: { type: 'str', desc: 'The token has an owner.', group: 'token', value: TRUE_FALSE },
    holds: onToken((value, token) => isTrueValue(value) === token.hasOwner),
  },
  tokenresolver: {
    spec: { type: 'str', desc: "The resolver of the token's owner (comma list).", group: 'token' },
    holds: onToken((value, token) => listed(value, token.owner?.resolver)),
  },
  token_is_orphaned: {
    spec: {
      type: 'str',
      desc: 'The token has an owner its user store no longer knows.',
      group: 'token',
      value: TRUE_FALSE,
    },
    holds: onToken(async (value, token, facts) => {
      const orphaned = token.hasOwner && (await facts.owner())?.known !== true;
      return isTrueValue(value) === orphaned;
    }),
  },
  token_validity_period: {
    spec: {
      type: 'str',
      desc: 'The token is within its validity period.',
      group: 'token',
      value: TRUE_FALSE,
    },
    holds: onToken(
      (value, token, facts) => isTrueValue(value) === !outsideValidityPeriod(token.info, facts.now),
    ),
  },
  user_token_number: {
    spec: {
      type: 'str',
      desc: "The number of tokens of the request's user (<n, >n, ==n, !=n or n).",
      group: 'user',
    },
    check: (value) => {
      parseIntComparison(value);
    },
    holds: async (value, facts) => {
      const n = await facts.userTokenCount();
      return n !== undefined && compareInt(n, parseIntComparison(value));
    },
  },
  otp_counter: tokenNumber('The OTP counter of the token', (t) => t.count),
  count_auth: tokenNumber('The authentication counter of the token', (t) => counterValue(t.info.count_auth)),
  count_auth_success: tokenNumber('The successful authentications of the token', (t) =>
    counterValue(t.info.count_auth_success),
  ),
  count_auth_fail: tokenNumber(
    'The failed authentications of the token (count_auth - count_auth_success)',
    (t) => counterValue(t.info.count_auth) - counterValue(t.info.count_auth_success),
  ),
  failcounter: tokenNumber('The fail counter of the token', (t) => t.failcount),
  counter: {
    spec: {
      type: 'str',
      desc: 'An event counter compared with an integer, like mycounter>10 (==, !=, <, >).',
      group: 'counter',
    },
    check: (value) => {
      parseCounterComparison(value);
    },
    holds: async (value, facts) => {
      const c = parseCounterComparison(value);
      return compareInt(await facts.counter(c.key), { op: c.op, n: c.n });
    },
  },
  tokeninfo: {
    spec: {
      type: 'str',
      desc: 'A tokeninfo value compared, like key==value, key<{now}-10d (==, !=, <, >).',
      group: 'token',
    },
    check: (value) => {
      parseKeyComparison(value);
    },
    holds: onToken((value, token, facts) => {
      const c = parseKeyComparison(value);
      return compareValues(token.info[c.key], c, facts.now);
    }),
  },
  last_auth: {
    spec: {
      type: 'str',
      desc: "The token's last authentication is older than this, like 10h or 7d.",
      group: 'token',
    },
    check: (value) => {
      parseAge(value);
    },
    holds: onToken((value, token, facts) => {
      const at = token.info.last_auth === undefined ? undefined : parseLastAuth(token.info.last_auth);
      return at !== undefined && at + parseAge(value) < facts.now.getTime();
    }),
  },
  rollout_state: {
    spec: { type: 'str', desc: 'The rollout state of the token.', group: 'token' },
    holds: onToken((value, token) => token.rolloutState === value),
  },
  challenge_session: {
    spec: {
      type: 'str',
      desc: "A regular expression the session of the request's challenge (transaction_id) must match.",
      group: 'challenge',
    },
    check: checkRegex,
    holds: onChallenge((value, c) => regexHolds(value, c.session)),
  },
  challenge_expired: {
    spec: {
      type: 'str',
      desc: "The request's challenge (transaction_id) has expired.",
      group: 'challenge',
      value: TRUE_FALSE,
    },
    holds: onChallenge((value, c, now) => isTrueValue(value) === Date.parse(c.expiration) < now.getTime()),
  },
};

/** A condition's value checked against its grammar; a malformed one is ParameterError 905. */
export function checkConditionValue(name: string, value: string): void {
  try {
    CONDITIONS[name]?.check?.(value);
  } catch (e) {
    if (!(e instanceof ConditionValueError)) throw e;
    throw new ParameterError(`The condition ${name}: ${e.message}.`);
  }
}

/** The names of the conditions, sorted. */
export function conditionNames(): string[] {
  return Object.keys(CONDITIONS).sort();
}

/** GET /event/conditions/<module>: condition → {type, desc, group, value?}. */
export function conditionSpecs(): Record<string, ConditionCheck['spec']> {
  return Object.fromEntries(conditionNames().map((n) => [n, (CONDITIONS[n] as ConditionCheck).spec]));
}

/**
 * Whether every condition holds. A condition on the response does not hold before it (pre);
 * unknown names never reach here (they are refused when a definition is saved).
 */
export async function conditionsHold(
  conditions: Readonly<Record<string, string>>,
  facts: EventFacts,
  position: Position,
): Promise<boolean> {
  for (const [name, value] of Object.entries(conditions)) {
    const check = CONDITIONS[name];
    if (!check || (check.postOnly && position === 'pre')) return false;
    if (!(await check.holds(value, facts))) return false;
  }
  return true;
}
