// GET /token/challenges and DELETE /token/challenges/expired: the open challenges of tokens, as far
// as the caller may see the tokens.
import type { Selectable } from 'kysely';
import { PolicyError } from '../../errors.ts';
import type { ChallengeTable } from '../../store/index.ts';
import { grantedRealms } from '../access/index.ts';
import type { Context } from '../context.ts';
import { pageLinks, pageOf } from './page.ts';
import { inTransaction, mayActOn } from './select.ts';
import { requireToken } from './store/index.ts';

/** Flask's rendering of a datetime in JSON: an RFC 1123 HTTP date. */
function httpDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toUTCString();
}

export interface ChallengeQuery {
  serial?: string | undefined;
  transaction_id?: string | undefined;
  sortby?: string | undefined;
  sortdir?: string | undefined;
  page?: number | undefined;
  pagesize?: number | undefined;
}

const CHALLENGE_SORT = new Set(['timestamp', 'expiration', 'serial', 'transaction_id', 'id']);

/** GET /token/challenges/[<serial>]: realm-restricted administrators see their realms' tokens only. */
export async function listChallenges(
  ctx: Context,
  q: ChallengeQuery,
): Promise<{
  challenges: Record<string, unknown>[];
  count: number;
  current: number;
  prev: number | null;
  next: number | null;
}> {
  if (q.serial) {
    const t = await requireToken(ctx, q.serial);
    if (!(await mayActOn(ctx, 'getchallenges', t)))
      throw new PolicyError('Admin actions are defined, but the action getchallenges is not allowed!');
  }
  let query = ctx.store.db.selectFrom('challenge');
  if (q.serial) query = query.where('serial', '=', q.serial);
  if (q.transaction_id) query = query.where('transaction_id', '=', q.transaction_id);
  const granted = q.serial ? undefined : await grantedRealms(ctx, 'getchallenges');
  if (granted) {
    query = query.where('serial', 'in', (eb) =>
      eb
        .selectFrom('token')
        .innerJoin('tokenrealm', 'tokenrealm.token_id', 'token.id')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .select('token.serial')
        .where('realm.name', 'in', granted.length ? granted : ['']),
    );
  }
  const count = Number(
    (await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
  );
  const { page, pagesize, offset } = pageOf(q);
  const sortby = q.sortby && CHALLENGE_SORT.has(q.sortby) ? q.sortby : 'timestamp';
  const rows = await query
    .selectAll()
    .orderBy(sortby as 'timestamp', q.sortdir === 'desc' ? 'desc' : 'asc')
    .orderBy('id')
    .limit(pagesize)
    .offset(offset)
    .execute();
  return { challenges: rows.map(challengeView), count, current: page, ...pageLinks(page, pagesize, count) };
}

/** A challenge as the API shows it: its data parsed where it is JSON, dates as HTTP dates. */
function challengeView(r: Selectable<ChallengeTable>): Record<string, unknown> {
  let data: unknown = r.data;
  try {
    data = JSON.parse(r.data);
  } catch {
    // kept as text
  }
  return {
    id: r.id,
    transaction_id: r.transaction_id,
    challenge: r.challenge,
    serial: r.serial,
    data,
    otp_received: r.received_count > 0,
    received_count: r.received_count,
    otp_valid: r.otp_valid === 1,
    expiration: httpDate(r.expiration),
    timestamp: httpDate(r.timestamp),
  };
}

/** DELETE /token/challenges/expired. */
export async function deleteExpiredChallenges(ctx: Context): Promise<{ status: boolean; deleted: number }> {
  const now = ctx.clock().getTime();
  const rows = await ctx.store.db.selectFrom('challenge').select(['id', 'expiration']).execute();
  const expired = rows.filter((r) => {
    const t = Date.parse(r.expiration);
    return !Number.isNaN(t) && t < now;
  });
  if (expired.length)
    await inTransaction(ctx, async (trx) => {
      for (let i = 0; i < expired.length; i += 500)
        await trx
          .deleteFrom('challenge')
          .where(
            'id',
            'in',
            expired.slice(i, i + 500).map((r) => r.id),
          )
          .execute();
    });
  return { status: true, deleted: expired.length };
}
