// InactiveTokenSweep: disables or deletes tokens whose last successful authentication (the
// tokeninfo `last_auth`, which /validate/* stamps on every success) is more than `days` days ago.
// A token that never authenticated has no last_auth and is left alone: a newly enrolled token is
// not "inactive".
import type { Runtime } from '../core/context.ts';
import { deleteTokenRows, findToken, setActive } from '../core/token/index.ts';
import { parseLastAuth } from '../core/validate/index.ts';
import { ParameterError } from '../errors.ts';
import { runTransaction } from '../store/index.ts';
import type { RunSummary, TaskModule } from './task-module.ts';

const DAY_MS = 86_400_000;
const ACTIONS = ['disable', 'delete'];

/** Ids and serials of the tokens whose last_auth is before `cutoff` (ms). */
async function inactiveTokens(rt: Runtime, cutoff: number, onlyActive: boolean) {
  let q = rt.store.db
    .selectFrom('tokeninfo')
    .innerJoin('token', 'token.id', 'tokeninfo.token_id')
    .select(['token.id', 'token.serial', 'tokeninfo.value'])
    .where('tokeninfo.key', '=', 'last_auth');
  if (onlyActive) q = q.where('token.active', '=', 1);
  const rows = await q.execute();
  return rows.filter((r) => {
    const at = parseLastAuth(r.value);
    return at !== undefined && at < cutoff;
  });
}

export const inactiveTokenSweep: TaskModule = {
  name: 'InactiveTokenSweep',
  description: 'Disables or deletes tokens without a successful authentication for a number of days.',
  options: {
    days: { type: 'int', required: true, description: 'Days since the last successful authentication.' },
    action: { type: 'str', required: true, description: 'disable or delete.' },
  },
  check(options) {
    if (!ACTIONS.includes(String(options.action)))
      throw new ParameterError(`Option 'action' of task module InactiveTokenSweep must be disable or delete`);
    if (Number(options.days) < 1)
      throw new ParameterError(`Option 'days' of task module InactiveTokenSweep must be at least 1`);
  },
  async run(rt, options): Promise<RunSummary> {
    const cutoff = rt.clock().getTime() - Number(options.days) * DAY_MS;
    const disable = options.action === 'disable';
    const tokens = await inactiveTokens(rt, cutoff, disable);
    if (disable) {
      // One statement per token, through the token store (the one writer of the token tables).
      for (const t of tokens) await setActive(rt.store.db, t.id, false);
      return { disabled: tokens.length };
    }
    let deleted = 0;
    for (const t of tokens) {
      await runTransaction(rt.store, async (trx) => {
        const token = await findToken(rt, t.serial, trx);
        if (!token) return; // deleted meanwhile
        await deleteTokenRows(trx, rt.store, token);
        deleted++;
      });
    }
    return { deleted };
  },
};
