// GET /token/getserial/<otp>: the token that produced an OTP value.
import { sql } from 'kysely';
import { ERR, TokenAdminError } from '../../errors.ts';
import { findTokenType, type OtpMatch } from '../../tokens/index.ts';
import { LIKE_ESCAPE, likeLiteral } from '../../wildcard.ts';
import type { Context } from '../context.ts';
import { checkFilters } from '../limits.ts';
import { consumeOtp, type LoadedToken, loadRows, setTokenInfoRacing, tokenState } from './store/index.ts';

export interface GetSerialQuery {
  type?: string | undefined;
  /** A part of the serial. */
  serial?: string | undefined;
  assigned?: boolean | undefined;
  unassigned?: boolean | undefined;
  countOnly?: boolean | undefined;
  window?: number | undefined;
}

/**
 * GET /token/getserial/<otp>: the token among the candidates whose values within `window` hold the
 * OTP, asked of every type that can search its values (TokenType.searchOtp; HOTP: the next
 * `window` counters; TOTP: ±`window` time steps around now, newer than its last accepted step).
 * The value is consumed: the counter moves past it (TOTP: the matched step becomes the last
 * accepted one and the drift is learned), so it can no longer be used to authenticate. Several
 * matches → ERR1200.
 */
export async function serialByOtp(
  ctx: Context,
  otp: string,
  q: GetSerialQuery,
): Promise<{ serial: string | null; count: number }> {
  checkFilters({ serial: q.serial, type: q.type });
  let query = ctx.store.db.selectFrom('token');
  if (q.type) query = query.where('tokentype', '=', findTokenType(q.type)?.type ?? q.type.toLowerCase());
  if (q.serial)
    query = query.where(
      sql<boolean>`serial LIKE ${`%${likeLiteral(q.serial)}%`} ESCAPE ${sql.lit(LIKE_ESCAPE)}`,
    );
  if (q.assigned) query = query.where('id', 'in', (eb) => eb.selectFrom('tokenowner').select('token_id'));
  else if (q.unassigned)
    query = query.where('id', 'not in', (eb) => eb.selectFrom('tokenowner').select('token_id'));
  const rows = await query.selectAll().orderBy('serial').execute();
  if (q.countOnly) return { serial: null, count: rows.length };
  const window = q.window ?? 10;
  const now = ctx.clock();
  const found: { t: LoadedToken; match: OtpMatch }[] = [];
  const searchable = rows.filter((r) => findTokenType(r.tokentype)?.otpSearchable);
  for (const t of await loadRows(ctx, searchable)) {
    const match = t.type.searchOtp(tokenState(ctx, t), otp, window, now);
    if (match) found.push({ t, match });
  }
  if (found.length > 1)
    throw new TokenAdminError('multiple tokens are matching this OTP value!', ERR.OtpAmbiguous);
  const hit = found[0];
  if (!hit || !(await consumeOtp(ctx, hit.t, hit.match.newCount)))
    return { serial: null, count: rows.length };
  if (hit.match.info) await setTokenInfoRacing(ctx, hit.t.row.id, hit.match.info);
  return { serial: hit.t.row.serial, count: rows.length };
}
