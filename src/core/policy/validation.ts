// The checks of a policy before it is stored: its name, scope, actions, realms, resolvers, nodes,
// patterns, time, client list and conditions, each with privacyIDEA's message.

import type { Transaction } from 'kysely';
import { AuthsrvError, ParameterError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import {
  type ActionDict,
  CONDITION_SECTIONS,
  type ConditionTuple,
  compileClientList,
  compileConditions,
  compilePolicy,
  isScope,
  parseActions,
  parseTimeRanges,
} from '../../policy/index.ts';
import type { Database } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { policyDefinitions } from './definitions.ts';
import type { MergedPolicy } from './records.ts';

const NAME_CHARS = /^[A-Za-z0-9_.\- ]+$/;

/** privacyIDEA's name rules: the API's character check, then set_policy's white space and reserved names. */
export function checkPolicyName(name: string): void {
  checkLength('name', name, LIMITS.name);
  if (!NAME_CHARS.test(name)) {
    throw new ParameterError('The name of the policy may only contain the characters a-zA-Z0-9_. -');
  }
  if (/\s/.test(name)) throw new ParameterError('Policy name must not contain white spaces!');
  if (name.toLowerCase() === 'check' || name.toLowerCase().startsWith('pi-update-policy-')) {
    throw new ParameterError(`Invalid policy name: ${name}`);
  }
}

function stripNegation(entry: string): string {
  return entry.startsWith('!') || entry.startsWith('-') ? entry.slice(1) : entry;
}

/** An entry with regex syntax is a pattern (only compiled); any other entry names an object that must exist. */
function isPattern(entry: string): boolean {
  return /[*?+[\](){}|^$\\]/.test(entry);
}

function checkPatterns(field: string, entries: readonly string[]): void {
  for (const raw of entries) {
    const e = stripNegation(raw);
    if (e === '*') continue;
    try {
      new RegExp(`^(?:${e})$`);
    } catch {
      throw new ParameterError(`Invalid ${field} '${raw}': not a valid pattern`);
    }
  }
}

function missingNames(entries: readonly string[], known: readonly string[]): string[] {
  const lower = new Set(known.map((k) => k.toLowerCase()));
  return entries.map(stripNegation).filter((e) => e !== '' && !isPattern(e) && !lower.has(e.toLowerCase()));
}

function describe(names: readonly string[]): string {
  return `[${names.map((n) => `'${n}'`).join(', ')}]`;
}

export function parsePriority(v: number | string | undefined): number {
  if (v === undefined || v === '') return 1;
  const n = typeof v === 'number' ? v : /^\s*[+-]?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n)) throw new ParameterError('Priority must be a whole number');
  if (n < 1) throw new ParameterError('Priority must be at least 1');
  return n;
}

/** Conditions from a list of lists or its JSON text; each 5 or 6 items. */
export function parseConditions(v: unknown): ConditionTuple[] {
  let list = v;
  if (typeof v === 'string') {
    if (v.trim() === '') return [];
    try {
      list = JSON.parse(v);
    } catch {
      throw new ParameterError('Invalid conditions: expected a JSON list of lists');
    }
  }
  if (list === null || list === undefined) return [];
  if (!Array.isArray(list)) throw new ParameterError('Invalid conditions: expected a list of lists');
  return list.map((c, i): ConditionTuple => {
    if (!Array.isArray(c) || (c.length !== 5 && c.length !== 6)) {
      throw new ParameterError(
        `Invalid condition ${i + 1}: expected [section, key, comparator, value, active(, handle_missing_data)]`,
      );
    }
    const [section, key, comparator, value, active, handle] = c as unknown[];
    if (typeof section !== 'string' || !Object.hasOwn(CONDITION_SECTIONS, section)) {
      throw new ParameterError(`Invalid condition ${i + 1}: unknown section '${String(section)}'`);
    }
    if (typeof key !== 'string' || key === '')
      throw new ParameterError(`Invalid condition ${i + 1}: the key must be a non-empty string`);
    if (typeof comparator !== 'string')
      throw new ParameterError(`Invalid condition ${i + 1}: the comparator must be a string`);
    if (typeof value !== 'string' && typeof value !== 'number')
      throw new ParameterError(`Invalid condition ${i + 1}: the value must be a string`);
    const base: [string, string, string, string, boolean] = [
      section,
      key,
      comparator,
      String(value),
      isTrue(active),
    ];
    if (c.length === 6) {
      if (typeof handle !== 'string')
        throw new ParameterError(`Invalid condition ${i + 1}: handle_missing_data must be a string`);
      return [...base, handle];
    }
    return base;
  });
}

export async function nodeNames(db: Transaction<Database> | Runtime['store']['db']): Promise<string[]> {
  return (await db.selectFrom('node').select('name').orderBy('name').execute()).map((r) => r.name);
}

export async function validate(
  ctx: Context,
  trx: Transaction<Database>,
  name: string,
  p: MergedPolicy,
  action: string | Readonly<Record<string, unknown>>,
): Promise<ActionDict> {
  if (!isScope(p.scope)) throw new ParameterError(`Invalid scope '${p.scope}'`);
  const dict = parseActions(p.scope, action, policyDefinitions());
  for (const f of ['realm', 'resolver', 'user', 'adminrealm', 'adminuser'] as const) checkPatterns(f, p[f]);
  const realms = (await trx.selectFrom('realm').select('name').execute()).map((r) => r.name);
  const badRealms = missingNames(p.realm, realms);
  if (badRealms.length) throw new ParameterError(`Undefined User-Realms: ${describe(badRealms)}!`);
  const badAdminRealms = missingNames(p.adminrealm, ctx.config.security.superuserRealms);
  if (badAdminRealms.length) throw new ParameterError(`Undefined Admin-Realms: ${describe(badAdminRealms)}!`);
  const resolvers = (await trx.selectFrom('resolver').select('name').execute()).map((r) => r.name);
  const badResolvers = missingNames(p.resolver, resolvers);
  if (badResolvers.length) throw new ParameterError(`Undefined Resolvers: ${describe(badResolvers)}!`);
  const nodes = await nodeNames(trx);
  const badNodes = p.servicenode.filter((n) => !nodes.includes(n));
  if (badNodes.length) throw new ParameterError(`Undefined Nodes: ${describe(badNodes)}!`);
  parseTimeRanges(p.time);
  try {
    compileClientList(p.client);
  } catch (e) {
    // The issue asks for 905 here (privacyIDEA answers 302); the message stays.
    if (e instanceof AuthsrvError) throw new ParameterError(e.message);
    throw e;
  }
  compileConditions(name, p.conditions);
  // The record as the matcher will see it must compile as a whole.
  compilePolicy({ ...p, name, action: dict });
  return dict;
}
