// The policy service (reference 5.1, 5.6): create or update, list, delete, enable/disable, the
// check of a request against the stored policies and the definitions. Every write validates the
// whole resulting policy first (scope, actions, realms/resolvers/nodes, patterns, time, client,
// conditions) and stores it in one transaction, which also moves the `policy_version` counter in
// `meta` so that every node can drop its compiled policies.

import type { Insertable, Selectable, Transaction } from 'kysely';
import { AuthsrvError, ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import {
  type ActionDict,
  type ApiActionDef,
  CONDITION_SECTIONS,
  type ConditionTuple,
  compileClientList,
  compileConditions,
  compilePolicies,
  compilePolicy,
  type FileValue,
  formatPolicyFile,
  isScope,
  type PolicyRecord,
  type PolicySet,
  parseActions,
  parsePolicyFile,
  parseTimeRanges,
} from '../../policy/index.ts';
import type { Database, PolicyTable } from '../../store/index.ts';
import { textList } from '../../text-list.ts';
import {
  bumpCounter,
  CountedCache,
  forgetCounters,
  POLICY_VERSION_ROW,
  readCounters,
} from '../change-counters.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { policyDefinitions } from './definitions.ts';

/** The change counter row in `meta`: incremented by every policy write. */
export { POLICY_VERSION_ROW };

const NOT_FOUND = 'The requested Policy could not be found.';

type List = readonly string[] | string;

/**
 * What a create/update call gives. Lists may be arrays or comma-separated text. An attribute left
 * undefined keeps its stored value on update (lists, time, conditions, action); priority,
 * description, active, check_all_resolvers and user_case_insensitive are always rewritten, with
 * their defaults (1, null, true, false, false) when undefined — privacyIDEA's rules (reference 5.6).
 */
export interface PolicyInput {
  scope: string;
  action?: string | Readonly<Record<string, unknown>>;
  realm?: List;
  resolver?: List;
  user?: List;
  adminrealm?: List;
  adminuser?: List;
  client?: List;
  servicenode?: List;
  user_agents?: List;
  time?: string;
  priority?: number | string;
  active?: boolean;
  check_all_resolvers?: boolean;
  user_case_insensitive?: boolean;
  /** A list of lists, or its JSON text. */
  conditions?: unknown;
  description?: string | null;
}

/** A policy as the API shows it (reference 5.1; `pinode` repeats `servicenode` for privacyIDEA clients). */
export interface PolicyView {
  name: string;
  scope: string;
  action: ActionDict;
  active: boolean;
  realm: string[];
  resolver: string[];
  user: string[];
  adminrealm: string[];
  adminuser: string[];
  client: string[];
  servicenode: string[];
  pinode: string[];
  user_agents: string[];
  time: string;
  priority: number;
  check_all_resolvers: boolean;
  user_case_insensitive: boolean;
  conditions: ConditionTuple[];
  description: string | null;
}

/** The list attributes of a policy. */
export const LIST_FIELDS = [
  'realm',
  'resolver',
  'user',
  'adminrealm',
  'adminuser',
  'client',
  'servicenode',
  'user_agents',
] as const;
type ListField = (typeof LIST_FIELDS)[number];

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function rowToView(r: Selectable<PolicyTable>): PolicyView {
  const list = (t: string) => parseJson<string[]>(t, []);
  const servicenode = list(r.servicenode);
  return {
    name: r.name,
    scope: r.scope,
    action: parseJson<ActionDict>(r.action, {}),
    active: r.active === 1,
    realm: list(r.realm),
    resolver: list(r.resolver),
    user: list(r.user),
    adminrealm: list(r.adminrealm),
    adminuser: list(r.adminuser),
    client: list(r.client),
    servicenode,
    pinode: [...servicenode],
    user_agents: list(r.user_agents),
    time: r.time,
    priority: r.priority,
    check_all_resolvers: r.check_all_resolvers === 1,
    user_case_insensitive: r.user_case_insensitive === 1,
    conditions: parseJson<ConditionTuple[]>(r.conditions, []),
    description: r.description,
  };
}

export function viewToRecord(v: PolicyView): PolicyRecord {
  const { pinode: _pinode, ...rest } = v;
  return rest;
}

// ---------------------------------------------------------------------------------------------
// Validation.

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

function parsePriority(v: number | string | undefined): number {
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

async function nodeNames(db: Transaction<Database> | Runtime['store']['db']): Promise<string[]> {
  return (await db.selectFrom('node').select('name').orderBy('name').execute()).map((r) => r.name);
}

async function validate(
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

async function bumpVersion(ctx: Context, trx: Transaction<Database>): Promise<void> {
  await bumpCounter(trx, ctx.store, POLICY_VERSION_ROW);
}

/** The current policy change counter (0 before the first write). */
export async function policyVersion(rt: Runtime): Promise<number> {
  return (await readCounters(rt.store)).policy;
}

// ---------------------------------------------------------------------------------------------
// The compiled policies every decision reads, one set per database.

const compiled = new CountedCache<PolicySet>((c) => c.policy, readCounters);

/**
 * The compiled policies. Each call reads the change counters (one statement, shared with the
 * configuration cache, see change-counters.ts) and recompiles only when the policy counter moved,
 * on this node or on any other sharing the database; concurrent calls share one read.
 */
export function compiledPolicies(rt: Runtime): Promise<PolicySet> {
  return compiled.get(rt.store, async () =>
    compilePolicies(Object.values(await getPolicies(rt)).map(viewToRecord)),
  );
}

/** After a local write: a read that began before the commit must not be handed to later callers. */
function forgetCompiled(rt: Runtime): void {
  compiled.forget(rt.store);
  forgetCounters(rt.store);
}

// ---------------------------------------------------------------------------------------------
// Service functions.

/** The policy table's TEXT columns (JSON for the lists): their length is checked as stored. */
const TEXT_FIELDS = [
  'action',
  'realm',
  'adminrealm',
  'adminuser',
  'resolver',
  'user',
  'client',
  'time',
  'servicenode',
  'user_agents',
  'description',
  'conditions',
] as const;

/** A policy as validated and stored, before its action text is turned into the action dict. */
type MergedPolicy = Omit<PolicyView, 'pinode' | 'action'>;

/** Creates or updates a policy (reference 5.6); returns its database id. Nothing is stored on error. */
export async function setPolicy(ctx: Context, name: string, input: PolicyInput): Promise<number> {
  const id = await ctx.store.db.transaction().execute((trx) => setPolicyIn(ctx, trx, name, input));
  forgetCompiled(ctx);
  return id;
}

/** setPolicy inside the caller's transaction (an import stores all its policies in one). */
async function setPolicyIn(
  ctx: Context,
  trx: Transaction<Database>,
  name: string,
  input: PolicyInput,
): Promise<number> {
  checkPolicyName(name);
  if (!input.scope) throw ParameterError.missing('scope');
  const existing = await trx.selectFrom('policy').selectAll().where('name', '=', name).executeTakeFirst();
  const before = existing ? rowToView(existing) : undefined;
  if (input.action === undefined && input.scope !== 'user' && !before) throw ParameterError.missing('action');
  const merged = mergedPolicy(name, input, before);
  const action = await validate(ctx, trx, name, merged, input.action ?? before?.action ?? {});
  const id = await writePolicy(trx, existing?.id, policyColumns(merged, action));
  await bumpVersion(ctx, trx);
  return id;
}

/**
 * The input over the stored policy: absent lists, time and conditions keep their stored value; the
 * other attributes are always rewritten, with their defaults when absent (see PolicyInput).
 */
function mergedPolicy(name: string, input: PolicyInput, before: PolicyView | undefined): MergedPolicy {
  const lists = {} as Record<ListField, string[]>;
  for (const f of LIST_FIELDS) {
    const given = input[f];
    lists[f] = given !== undefined ? textList(given) : (before?.[f] ?? []);
  }
  return {
    name,
    scope: input.scope,
    active: input.active ?? true,
    ...lists,
    time: input.time !== undefined ? input.time.trim() : (before?.time ?? ''),
    priority: parsePriority(input.priority),
    check_all_resolvers: input.check_all_resolvers ?? false,
    user_case_insensitive: input.user_case_insensitive ?? false,
    conditions:
      input.conditions !== undefined ? parseConditions(input.conditions) : (before?.conditions ?? []),
    description: input.description === undefined || input.description === '' ? null : input.description,
  };
}

/** The row of the policy table, its TEXT columns checked against the length they may have. */
function policyColumns(p: MergedPolicy, action: ActionDict): Insertable<PolicyTable> {
  const values = {
    name: p.name,
    scope: p.scope,
    action: JSON.stringify(action),
    realm: JSON.stringify(p.realm),
    adminrealm: JSON.stringify(p.adminrealm),
    adminuser: JSON.stringify(p.adminuser),
    resolver: JSON.stringify(p.resolver),
    user: JSON.stringify(p.user),
    client: JSON.stringify(p.client),
    time: p.time,
    priority: p.priority,
    active: p.active ? 1 : 0,
    check_all_resolvers: p.check_all_resolvers ? 1 : 0,
    servicenode: JSON.stringify(p.servicenode),
    user_agents: JSON.stringify(p.user_agents),
    user_case_insensitive: p.user_case_insensitive ? 1 : 0,
    description: p.description,
    conditions: JSON.stringify(p.conditions),
  };
  for (const f of TEXT_FIELDS) checkLength(f, values[f], LIMITS.text);
  return values;
}

/** Updates the stored row or inserts a new one; returns the policy's id. */
async function writePolicy(
  trx: Transaction<Database>,
  existingId: number | undefined,
  values: Insertable<PolicyTable>,
): Promise<number> {
  if (existingId !== undefined) {
    await trx.updateTable('policy').set(values).where('id', '=', existingId).execute();
    return Number(existingId);
  }
  await trx.insertInto('policy').values(values).execute();
  const row = await trx
    .selectFrom('policy')
    .select('id')
    .where('name', '=', values.name)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export interface PolicyFilter {
  name?: string | undefined;
  realm?: string | undefined;
  scope?: string | undefined;
  active?: boolean | undefined;
}

/**
 * privacyIDEA compares realm and scope with the stored column text (the list joined with ', '):
 * exact equality, or a case-insensitive pattern where `*` is any text (reference 5.6).
 */
function columnMatches(stored: string, wanted: string): boolean {
  if (!wanted.includes('*')) return stored === wanted;
  const re = new RegExp(`^${wanted.split('*').map(escapeRegex).join('.*')}$`, 'is');
  return re.test(stored);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The policies passing the filters, as an object mapping name → policy (ordered by name). */
export async function getPolicies(
  rt: Runtime,
  filter: PolicyFilter = {},
): Promise<Record<string, PolicyView>> {
  let q = rt.store.db.selectFrom('policy').selectAll().orderBy('name');
  if (filter.name !== undefined) q = q.where('name', '=', filter.name);
  if (filter.active !== undefined) q = q.where('active', '=', filter.active ? 1 : 0);
  const out: Record<string, PolicyView> = {};
  for (const row of await q.execute()) {
    const v = rowToView(row);
    if (filter.scope !== undefined && !columnMatches(v.scope, filter.scope)) continue;
    if (filter.realm !== undefined && !columnMatches(v.realm.join(', '), filter.realm)) continue;
    out[v.name] = v;
  }
  return out;
}

async function change(
  ctx: Context,
  name: string,
  act: (trx: Transaction<Database>, id: number) => Promise<unknown>,
) {
  const id = await ctx.store.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('policy').select('id').where('name', '=', name).executeTakeFirst();
    if (!row) throw new ResourceNotFoundError(NOT_FOUND);
    await act(trx, row.id);
    await bumpVersion(ctx, trx);
    return Number(row.id);
  });
  forgetCompiled(ctx);
  return id;
}

/** Deletes a policy; returns its id. Unknown → ResourceNotFoundError 601. */
export function deletePolicy(ctx: Context, name: string): Promise<number> {
  return change(ctx, name, (trx, id) => trx.deleteFrom('policy').where('id', '=', id).execute());
}

/** Sets the active flag; returns the id. Unknown → ResourceNotFoundError 601. */
export function setPolicyActive(ctx: Context, name: string, active: boolean): Promise<number> {
  return change(ctx, name, (trx, id) =>
    trx
      .updateTable('policy')
      .set({ active: active ? 1 : 0 })
      .where('id', '=', id)
      .execute(),
  );
}

/** Renames a policy (privacyIDEA's PATCH /policy/<old_name>); returns its id. */
export async function renamePolicy(ctx: Context, name: string, newName: string): Promise<number> {
  checkPolicyName(newName);
  return change(ctx, name, async (trx, id) => {
    const taken = await trx.selectFrom('policy').select('id').where('name', '=', newName).executeTakeFirst();
    if (taken && taken.id !== id)
      throw new ParameterError(`A policy with the name '${newName}' already exists.`);
    await trx.updateTable('policy').set({ name: newName }).where('id', '=', id).execute();
  });
}

export const enablePolicy = (ctx: Context, name: string) => setPolicyActive(ctx, name, true);
export const disablePolicy = (ctx: Context, name: string) => setPolicyActive(ctx, name, false);

export interface CheckRequest {
  scope: string;
  action: string;
  user?: string | undefined;
  realm?: string | undefined;
  resolver?: string | undefined;
  client?: string | undefined;
}

/**
 * GET /policy/check: the active policies matching the request on this node at this time, best
 * priority first (generic matching: no "no policies means allowed" fallback). Conditions are not
 * evaluated: the request carries no user, token or HTTP data to test them against.
 */
export async function checkPolicy(
  rt: Runtime,
  req: CheckRequest,
): Promise<{ allowed: boolean; policy: PolicyView[]; info?: string }> {
  const views = Object.values(await getPolicies(rt));
  const set = await compiledPolicies(rt);
  const byName = new Map(views.map((v) => [v.name, v]));
  const matched = set.match({
    scope: req.scope,
    action: req.action,
    user: req.user,
    realm: req.realm,
    resolver: req.resolver,
    client: req.client,
    servicenode: rt.node,
    time: rt.clock(),
    conditionSections: [],
  });
  if (!matched.length) return { allowed: false, policy: [], info: 'No policies found' };
  return { allowed: true, policy: matched.map((p) => byName.get(p.name)!) };
}

/** GET /policy/defs[/<scope>]: the definitions; `servicenodes`/`pinodes` list the known nodes. */
/**
 * The definitions of GET /policy/defs[/<scope>], with what kind they are: every scope's actions,
 * one scope's, the condition sections and comparators, the node names, or nothing for an unknown
 * scope (as privacyIDEA answers).
 */
export type PolicyDefs =
  | { kind: 'scopes'; defs: Record<string, Record<string, ApiActionDef>> }
  | { kind: 'actions'; defs: Record<string, ApiActionDef> }
  | { kind: 'conditions'; defs: Record<string, unknown> }
  | { kind: 'nodes'; defs: string[] }
  | { kind: 'unknown'; defs: Record<string, never> };

export async function policyDefs(rt: Runtime, scope?: string): Promise<PolicyDefs> {
  if (scope === 'servicenodes' || scope === 'pinodes')
    return { kind: 'nodes', defs: await nodeNames(rt.store.db) };
  const defs = policyDefinitions().defsForApi(scope);
  if (scope === undefined)
    return { kind: 'scopes', defs: defs as Record<string, Record<string, ApiActionDef>> };
  if (scope === 'conditions') return { kind: 'conditions', defs };
  if (!isScope(scope)) return { kind: 'unknown', defs: {} };
  return { kind: 'actions', defs: defs as Record<string, ApiActionDef> };
}

// ---------------------------------------------------------------------------------------------
// Export and import (format: src/policy/policy-file.ts).

/** Every policy in the export format (ordered by name), and how many there are. */
export async function exportPolicies(rt: Runtime): Promise<{ text: string; count: number }> {
  const views = Object.values(await getPolicies(rt));
  const text = formatPolicyFile(views.map(viewToRecord) as unknown as Record<string, unknown>[]);
  return { text, count: views.length };
}

function fileList(v: FileValue | undefined, key: string): List | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new ParameterError(`Error loading policy. '${key}' must be a list of strings`);
}

function fileBool(v: FileValue | undefined): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  return isTrue(v);
}

function importInput(name: string, a: Record<string, FileValue>): PolicyInput {
  const scope = a.scope;
  if (typeof scope !== 'string' || scope === '') {
    throw new ParameterError(`Error loading policy. Policy '${name}' has no scope`);
  }
  const input: PolicyInput = { scope };
  const action = a.action;
  if (typeof action === 'string') input.action = action;
  else if (action && typeof action === 'object' && !Array.isArray(action)) input.action = action;
  else if (action !== undefined && action !== null)
    throw new ParameterError(`Error loading policy. The action of policy '${name}' is invalid`);
  for (const f of LIST_FIELDS) {
    const v = fileList(f === 'servicenode' ? (a.servicenode ?? a.pinode) : a[f], f);
    if (v !== undefined) input[f] = v;
  }
  if (a.time !== undefined && a.time !== null) input.time = String(a.time);
  if (typeof a.priority === 'number' || typeof a.priority === 'string') input.priority = a.priority;
  for (const f of ['active', 'check_all_resolvers', 'user_case_insensitive'] as const) {
    const v = fileBool(a[f]);
    if (v !== undefined) input[f] = v;
  }
  if (a.conditions !== undefined && a.conditions !== null) input.conditions = a.conditions;
  if (a.description !== undefined) input.description = a.description === null ? null : String(a.description);
  return input;
}

/**
 * Creates or updates every policy of an export file (authsrv's or privacyIDEA's) in one
 * transaction: one invalid policy and nothing is stored. Returns the number of policies imported.
 */
export async function importPolicies(ctx: Context, text: string): Promise<number> {
  if (text.trim() === '') throw new ParameterError('Error loading policy. File empty!');
  const sections = parsePolicyFile(text);
  if (sections.size === 0) throw new ParameterError('Error loading policy. File empty!');
  await ctx.store.db.transaction().execute(async (trx) => {
    for (const [name, attrs] of sections) await setPolicyIn(ctx, trx, name, importInput(name, attrs));
  });
  forgetCompiled(ctx);
  return sections.size;
}
