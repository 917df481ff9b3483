// SimpleStats (reference 7.2): for each option set to true, records one monitoring value whose
// stats key is the option's name. Hardware and software tokens are those whose tokeninfo
// `tokenkind` says so, as in privacyIDEA (core/token's countTokens): imported tokens are hardware,
// enrolled ones software, radius and 4eyes tokens virtual (neither). All values of one run are
// counted in one transaction and carry the same time.
import type { Kysely } from 'kysely';
import type { Runtime } from '../core/context.ts';
import { writeStatsValue } from '../core/monitoring/index.ts';
import { countTokenOwners, countTokens } from '../core/token/index.ts';
import { type Database, runTransaction } from '../store/index.ts';
import type { OptionSpec, RunSummary, TaskModule } from './task-module.ts';

type Count = (rt: Runtime, db: Kysely<Database>) => Promise<number>;

/** The stats key (= option) and how its value is counted. */
const COUNTS: Readonly<Record<string, { description: string; count: Count }>> = {
  total_tokens: { description: 'Total number of tokens', count: (rt, db) => countTokens(rt, {}, db) },
  hardware_tokens: {
    description: 'Number of hardware tokens',
    count: (rt, db) => countTokens(rt, { kind: 'hardware' }, db),
  },
  software_tokens: {
    description: 'Number of software tokens',
    count: (rt, db) => countTokens(rt, { kind: 'software' }, db),
  },
  unassigned_hardware_tokens: {
    description: 'Number of hardware tokens not assigned to a user',
    count: (rt, db) => countTokens(rt, { kind: 'hardware', assigned: false }, db),
  },
  assigned_tokens: {
    description: 'Number of tokens assigned to a user',
    count: (rt, db) => countTokens(rt, { assigned: true }, db),
  },
  user_with_token: {
    description: 'Number of users with at least one token',
    count: (rt, db) => countTokenOwners(rt, db),
  },
};

export const simpleStats: TaskModule = {
  name: 'SimpleStats',
  description: 'Records token and user counts as monitoring values, the option names as stats keys.',
  options: Object.fromEntries(
    Object.entries(COUNTS).map(([key, c]): [string, OptionSpec] => [
      key,
      { type: 'bool', required: false, description: c.description },
    ]),
  ),
  async run(rt, options) {
    const enabled = Object.keys(COUNTS).filter((key) => options[key] === true);
    const at = rt.clock();
    return runTransaction(rt.store, async (trx) => {
      const summary: RunSummary = {};
      for (const key of enabled) {
        const value = await (COUNTS[key] as { count: Count }).count(rt, trx);
        await writeStatsValue(rt, key, value, { at, db: trx });
        summary[key] = value;
      }
      return summary;
    });
  },
};
