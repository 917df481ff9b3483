// Export and import of every policy at once (the format: src/policy/policy-file.ts).

import { ParameterError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import { type FileValue, formatPolicyFile, parsePolicyFile } from '../../policy/index.ts';
import { runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { forgetCompiled, getPolicies, setPolicyIn } from './policy.ts';
import type { PolicyInput } from './records.ts';
import { LIST_FIELDS, type List, viewToRecord } from './records.ts';

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
  await runTransaction(ctx.store, async (trx) => {
    for (const [name, attrs] of sections) await setPolicyIn(ctx, trx, name, importInput(name, attrs));
  });
  forgetCompiled(ctx);
  return sections.size;
}
