// A policy as the API gives and shows it (PolicyInput, PolicyView) and as a table row.

import type { Selectable } from 'kysely';
import type { ActionDict, ConditionTuple, PolicyRecord } from '../../policy/index.ts';
import type { PolicyTable } from '../../store/index.ts';

export type List = readonly string[] | string;

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
export type ListField = (typeof LIST_FIELDS)[number];

function parseJson<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function rowToView(r: Selectable<PolicyTable>): PolicyView {
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

/** A policy as validated and stored, before its action text is turned into the action dict. */
export type MergedPolicy = Omit<PolicyView, 'pinode' | 'action'>;
