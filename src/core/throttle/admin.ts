// The operator's view of the throttling (`authsrv throttle list|clear`): the counts that still
// matter, and forgetting them by account, address or all at once.
import { ParameterError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { backoffOf, forgotten, retryAfter, type ThrottleKind } from './backoff.ts';
import { ACCOUNT_COLUMN_LENGTH, accountColumn, accountOf } from './keys.ts';
import { countOf } from './store.ts';

/** A count as the operator sees it. */
export interface ThrottleEntry {
  kind: ThrottleKind;
  /** '' for kind address. */
  account: string;
  address: string;
  failures: number;
  lastFailure: string;
  /** Until when attempts are refused; '' when they are not. */
  blockedUntil: string;
  /** Seconds until attempts go through again (0: they do now). */
  retryAfter: number;
}

/** The counts not yet forgotten, the longest refusals first. */
export async function listThrottles(ctx: Context): Promise<ThrottleEntry[]> {
  const now = ctx.clock();
  const rows = await ctx.store.db.selectFrom('login_failure').selectAll().where('failures', '>', 0).execute();
  const b = backoffOf(ctx.config.throttle, 'account');
  return rows
    .filter((r) => !forgotten(countOf(r), now, b))
    .map((r) => {
      const wait = retryAfter([countOf(r)], now);
      return {
        kind: r.kind,
        account: r.account,
        address: r.address,
        failures: r.failures,
        lastFailure: r.last_failure,
        blockedUntil: wait > 0 ? r.blocked_until : '',
        retryAfter: wait,
      };
    })
    .sort((x, y) => y.retryAfter - x.retryAfter || (x.lastFailure < y.lastFailure ? 1 : -1));
}

/** What `clearThrottles` forgets: an account (from every address, or from `address`), an address, or all. */
export interface ClearRequest {
  account?: string | undefined;
  address?: string | undefined;
  all?: boolean | undefined;
}

const MAX_ADDRESS = 64;

function checkClear(req: ClearRequest): void {
  if (req.all && (req.account !== undefined || req.address !== undefined))
    throw new ParameterError('Give --all or --account/--address, not both');
  if (!req.all && !req.account && !req.address)
    throw new ParameterError('Give --account, --address or --all');
  if ((req.account?.length ?? 0) > ACCOUNT_COLUMN_LENGTH * 4)
    throw new ParameterError(`The account must have at most ${ACCOUNT_COLUMN_LENGTH * 4} characters`);
  if ((req.address?.length ?? 0) > MAX_ADDRESS)
    throw new ParameterError(`The address must have at most ${MAX_ADDRESS} characters`);
}

/**
 * Forgets counts: `account` (login or login@realm, any case) those of the account from every
 * address, or with `address` from that one; `address` alone every count of the address (its own
 * and its accounts'); `all` every count. Answers how many were forgotten.
 */
export async function clearThrottles(ctx: Context, req: ClearRequest): Promise<{ cleared: number }> {
  checkClear(req);
  let q = ctx.store.db.deleteFrom('login_failure');
  if (req.account)
    q = q.where('kind', '=', 'account').where('account', '=', accountColumn(accountOf(req.account)));
  if (req.address) q = q.where('address', '=', req.address.trim());
  const r = await q.executeTakeFirst();
  return { cleared: Number(r.numDeletedRows) };
}
