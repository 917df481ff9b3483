// The conditions of event handling definitions (reference 7.1 "Conditions"): one function per
// condition, each answering whether the condition's value holds for the request at hand; all the
// conditions of a definition must hold. The token a condition asks about is read once per request
// and only when a condition needs it.
import { clientMatches, compileClientList } from '../../policy/index.ts';
import type { EventFacts, Position, TokenFacts } from './facts.ts';

export interface ConditionCheck {
  /** What GET /event/conditions/<module> shows. */
  spec: { type: 'str' | 'text' | 'multi'; desc: string; group: string; value?: readonly string[] };
  /** Only post handlers see the response. */
  postOnly?: boolean;
  holds(value: string, facts: EventFacts): Promise<boolean> | boolean;
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
function onToken(test: (value: string, token: TokenFacts) => boolean) {
  return async (value: string, facts: EventFacts) => {
    const token = await facts.token();
    return token !== undefined && test(value, token);
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
    holds: async (value, facts) => regexHolds(value, (await facts.token())?.serial ?? facts.serial),
  },
  logged_in_user: {
    spec: { type: 'str', desc: 'The role of the logged-in caller.', group: 'user', value: ['admin', 'user'] },
    holds: (value, facts) => facts.role === value,
  },
  client_ip: {
    spec: { type: 'str', desc: 'IP addresses or networks of the client (! excludes).', group: 'misc' },
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
    holds: (value, facts) => regexHolds(value, facts.result?.message),
  },
  detail_error_message: {
    spec: { type: 'str', desc: 'A regular expression searched in the error message.', group: 'misc' },
    postOnly: true,
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
};

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
