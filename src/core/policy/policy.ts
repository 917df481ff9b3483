// The policy service (reference 5.1, 5.6): create or update, list, delete, enable/disable, the
// check of a request against the stored policies and the definitions. Every write validates the
// whole resulting policy first (scope, actions, realms/resolvers/nodes, patterns, time, client,
// conditions) and stores it in one transaction, which also moves the `policy_version` counter in
// `meta` so that every node can drop its compiled policies.

import type { Insertable, Transaction } from 'kysely';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import {
  type ActionDict,
  type ApiActionDef,
  compilePolicies,
  isScope,
  type PolicySet,
} from '../../policy/index.ts';
import type { Database, PolicyTable } from '../../store/index.ts';
import { runTransaction } from '../../store/index.ts';
import { textList } from '../../text-list.ts';
import { wildcardMatcher } from '../../wildcard.ts';
import {
  bumpCounter,
  CountedCache,
  forgetCounters,
  POLICY_VERSION_ROW,
  readCounters,
} from '../change-counters.ts';
import type { Context, Runtime } from '../context.ts';
import { checkFilters, checkLength, LIMITS } from '../limits.ts';
import { policyDefinitions } from './definitions.ts';
import {
  LIST_FIELDS,
  type ListField,
  type MergedPolicy,
  type PolicyInput,
  type PolicyView,
  rowToView,
  viewToRecord,
} from './records.ts';
import { checkPolicyName, nodeNames, parseConditions, parsePriority, validate } from './validation.ts';

const NOT_FOUND = 'The requested Policy could not be found.';

async function bumpVersion(ctx: Context, trx: Transaction<Database>): Promise<void> {
  await bumpCounter(trx, ctx.store, POLICY_VERSION_ROW);
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
export function forgetCompiled(rt: Runtime): void {
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

/** Creates or updates a policy (reference 5.6); returns its database id. Nothing is stored on error. */
export async function setPolicy(ctx: Context, name: string, input: PolicyInput): Promise<number> {
  const id = await runTransaction(ctx.store, (trx) => setPolicyIn(ctx, trx, name, input));
  forgetCompiled(ctx);
  return id;
}

/** setPolicy inside the caller's transaction (an import stores all its policies in one). */
export async function setPolicyIn(
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
  return wildcardMatcher(wanted)(stored);
}

/** The policies passing the filters, as an object mapping name → policy (ordered by name). */
export async function getPolicies(
  rt: Runtime,
  filter: PolicyFilter = {},
): Promise<Record<string, PolicyView>> {
  checkFilters({ name: filter.name, realm: filter.realm, scope: filter.scope });
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
  const id = await runTransaction(ctx.store, async (trx) => {
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
