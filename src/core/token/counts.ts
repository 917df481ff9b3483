// How many tokens there are, for the SimpleStats task module. Hardware and software are told apart
// as privacyIDEA's SimpleStats does, by the tokeninfo `tokenkind` a token got when it was created:
// `hardware` for a token imported from a token file (/token/load), `software` for one enrolled,
// `virtual` for radius and 4eyes tokens (counted as neither). The token type is not asked.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/index.ts';
import type { Runtime } from '../context.ts';

export interface TokenCountFilter {
  /** Only tokens whose tokeninfo `tokenkind` is this. */
  kind?: 'hardware' | 'software';
  /** Only tokens with (true) or without (false) an owner. */
  assigned?: boolean;
}

/** The number of tokens matching the filter (all tokens without one). */
export async function countTokens(
  rt: Runtime,
  filter: TokenCountFilter = {},
  db: Kysely<Database> = rt.store.db,
): Promise<number> {
  let q = db.selectFrom('token').select((eb) => eb.fn.countAll<number | string>().as('n'));
  if (filter.kind !== undefined) {
    const kind = filter.kind;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('tokeninfo')
          .select('tokeninfo.id')
          .whereRef('tokeninfo.token_id', '=', 'token.id')
          .where('tokeninfo.key', '=', 'tokenkind')
          .where('tokeninfo.value', '=', kind),
      ),
    );
  }
  if (filter.assigned !== undefined) {
    const assigned = filter.assigned;
    q = q.where(({ exists, not, selectFrom }) => {
      const owned = exists(
        selectFrom('tokenowner')
          .select('tokenowner.token_id')
          .whereRef('tokenowner.token_id', '=', 'token.id'),
      );
      return assigned ? owned : not(owned);
    });
  }
  const row = await q.executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The number of users (resolver and user id) who own at least one token. */
export async function countTokenOwners(rt: Runtime, db: Kysely<Database> = rt.store.db): Promise<number> {
  const row = await db
    .selectFrom((eb) => eb.selectFrom('tokenowner').select(['resolver', 'user_id']).distinct().as('owners'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
