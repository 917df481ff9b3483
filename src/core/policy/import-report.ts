// What an import did to each policy of its file: created, updated or left as it was, for the
// operator who runs `authsrv policy import` (and any front end that wants to tell).
import { parsePolicyFile } from '../../policy/index.ts';
import type { Context } from '../context.ts';
import { importPolicies } from './file.ts';
import { getPolicies } from './policy.ts';

export type PolicyImportOutcome = 'created' | 'updated' | 'unchanged';

export interface ImportedPolicy {
  name: string;
  outcome: PolicyImportOutcome;
}

/** Imports a policy file (all or none, as importPolicies) and tells the outcome per policy, in file order. */
export async function importPoliciesReport(ctx: Context, text: string): Promise<ImportedPolicy[]> {
  const before = await getPolicies(ctx);
  await importPolicies(ctx, text);
  const after = await getPolicies(ctx);
  // The import succeeded, so the file parses; its section names are the imported policies.
  return [...parsePolicyFile(text).keys()].map((name) => {
    const was = before[name];
    if (was === undefined) return { name, outcome: 'created' };
    const same = JSON.stringify(was) === JSON.stringify(after[name]);
    return { name, outcome: same ? 'unchanged' : 'updated' };
  });
}
