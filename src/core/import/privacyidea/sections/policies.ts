// Policies (table policy, with policycondition and the `description` table). privacyIDEA's action
// text (`a, b=1, c=x\, y`) is what authsrv's policy service reads too; pinode becomes servicenode.
// Realms and resolvers the import itself creates (the resolvers and realms sections, planned and
// written before this one) do not exist yet when plan() tries a policy: the trial leaves those
// names out of its lists. A policy naming a realm that neither exists nor is imported is skipped.
import { type PolicyInput, setPolicy } from '../../../policy/index.ts';
import type { ImportInput } from '../section.ts';
import type { PiDatabase } from '../source.ts';
import { namesIn, type Planned, piBool, piText, serviceSection } from './common.ts';

/** A condition as privacyIDEA stores it: section, key, comparator, value, active. */
type ConditionTupleInput = [string, string, string, string, boolean];

interface PiPolicy {
  name: string;
  input: PolicyInput;
  /** What plan() tries: without the realms and resolvers the import creates before the policies. */
  trialInput: PolicyInput;
}

async function conditionsByPolicy(db: PiDatabase): Promise<Map<number, ConditionTupleInput[]>> {
  const rows = await db
    .selectFrom('policycondition')
    .select(['policy_id', 'section', 'Key', 'comparator', 'Value', 'active'])
    .orderBy('id')
    .execute();
  const out = new Map<number, ConditionTupleInput[]>();
  for (const r of rows) {
    const list = out.get(Number(r.policy_id)) ?? [];
    list.push([piText(r.section), piText(r.Key), piText(r.comparator), piText(r.Value), piBool(r.active)]);
    out.set(Number(r.policy_id), list);
  }
  return out;
}

async function descriptionsByPolicy(db: PiDatabase): Promise<Map<number, string>> {
  const rows = await db
    .selectFrom('description')
    .select(['object_id', 'description'])
    .where('object_type', '=', 'policy')
    .orderBy('id')
    .execute();
  return new Map(rows.map((r) => [Number(r.object_id), piText(r.description)]));
}

/** The names the import creates before the policies, in lower case. */
function plannedNames(input: ImportInput, section: string): Set<string> {
  return new Set(input.planned(section).map((n) => n.toLowerCase()));
}

function policyInput(
  r: Record<string, unknown>,
  conditions: ConditionTupleInput[],
  description: string | undefined,
): PolicyInput {
  return {
    scope: piText(r.scope),
    action: piText(r.action),
    realm: piText(r.realm),
    resolver: piText(r.resolver),
    user: piText(r.user),
    adminrealm: piText(r.adminrealm),
    adminuser: piText(r.adminuser),
    client: piText(r.client),
    servicenode: piText(r.pinode),
    time: piText(r.time),
    priority: Number(r.priority ?? 1),
    active: piBool(r.active),
    check_all_resolvers: piBool(r.check_all_resolvers),
    user_case_insensitive: piBool(r.user_case_insensitive),
    conditions,
    description: description ?? null,
  };
}

/** A comma-separated list without the names in `drop` (compared in lower case, `!` negation ignored). */
function without(list: PolicyInput['realm'], drop: Set<string>): string {
  const text = typeof list === 'string' ? list : (list ?? []).join(',');
  return text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '' && !drop.has(e.replace(/^[!-]/, '').toLowerCase()))
    .join(',');
}

export const policySection = serviceSection<PiPolicy>({
  name: 'policies',
  async read(input) {
    const { source } = input;
    const conditions = await conditionsByPolicy(source.db);
    const descriptions = await descriptionsByPolicy(source.db);
    const pending = { realms: plannedNames(input, 'realms'), resolvers: plannedNames(input, 'resolvers') };
    const rows = await source.db.selectFrom('policy').selectAll().orderBy('id').execute();
    return rows.map((r): Planned<PiPolicy> => {
      const id = Number(r.id);
      const name = piText(r.name);
      const policy = policyInput(r, conditions.get(id) ?? [], descriptions.get(id));
      const trialInput = {
        ...policy,
        realm: without(policy.realm, pending.realms),
        resolver: without(policy.resolver, pending.resolvers),
      };
      return { object: name, item: { name, input: policy, trialInput } };
    });
  },
  existing: namesIn('policy', 'name'),
  write: (ctx, p) => setPolicy(ctx, p.name, p.input),
  trial: (ctx, p) => setPolicy(ctx, p.name, p.trialInput),
});
