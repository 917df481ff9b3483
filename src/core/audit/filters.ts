// The filters of an audit search (privacyIDEA's): a value per column by its API name — `*` a
// wildcard, a leading `!` negating, success read as a truth value, number and duration as
// numbers — then the restriction of the caller's policies and the time limit.
import { type ExpressionBuilder, sql } from 'kysely';
import { parseDuration } from '../../config/index.ts';
import { ParameterError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import type { Database, Dialect } from '../../store/index.ts';
import { LIKE_ESCAPE, likeWildcard } from '../../wildcard.ts';
import type { Runtime } from '../context.ts';
import { checkFilters } from '../limits.ts';
import { BY_API_NAME, KINDS } from './columns.ts';
import type { AuditQuery } from './query.ts';
import type { AuditSelect } from './records.ts';

export function applyFilters(rt: Runtime, q: AuditSelect, query: AuditQuery): AuditSelect {
  checkFilters({ ...query.filters, timelimit: query.timelimit });
  let out = q;
  const dialect = rt.store.dialect;
  for (const [name, value] of Object.entries(query.filters)) out = columnFilter(out, dialect, name, value);
  const { owner, realms } = query.restriction ?? {};
  if (owner) out = out.where('user', '=', owner.user).where('realm', '=', owner.realm);
  if (realms) {
    out = out.where((eb) =>
      eb.or([
        ...(realms.realms.length ? [eb('realm', 'in', realms.realms)] : []),
        eb('administrator', '=', realms.administrator),
      ]),
    );
  }
  if (query.timelimit) {
    const since = rt.clock().getTime() - parseDuration(query.timelimit) * 1000;
    // A span reaching before 1970 covers every row (and would not make a valid date).
    if (since > 0) out = out.where('date', '>=', new Date(since).toISOString());
  }
  return out;
}

/** One column's filter; a name that is no column, an empty value or only `*` filter nothing. */
function columnFilter(q: AuditSelect, dialect: Dialect, name: string, rawValue: string): AuditSelect {
  const spec = BY_API_NAME.get(name);
  if (!spec) return q;
  const { column } = spec;
  const negate = rawValue.startsWith('!');
  const value = negate ? rawValue.slice(1) : rawValue;
  if (value === '' || /^\*+$/.test(value)) return q;
  const filter = KINDS[spec.kind].filter;
  if (filter === 'truth') return q.where(column, negate ? '!=' : '=', isTrue(value) ? 1 : 0);
  if (value.includes('*')) {
    const pattern = likeWildcard(value);
    return q.where(
      (eb: ExpressionBuilder<Database, 'audit'>) =>
        sql<boolean>`${asText(eb, column, filter, dialect)} ${sql.raw(negate ? 'NOT LIKE' : 'LIKE')} ${pattern} ESCAPE ${sql.lit(LIKE_ESCAPE)}`,
    );
  }
  if (filter === 'number') {
    if (!/^\d+(\.\d+)?$/.test(value)) throw new ParameterError(`Audit filter '${name}' must be a number`);
    return q.where(column, negate ? '!=' : '=', Number(value));
  }
  return q.where(column, negate ? '!=' : '=', value);
}

/**
 * The column as text for LIKE: PostgreSQL has no LIKE on numbers (an error, not an empty page), and
 * its CHAR is one character long, so each dialect gets its own text type.
 */
function asText(
  eb: ExpressionBuilder<Database, 'audit'>,
  column: keyof Database['audit'],
  filter: string,
  dialect: Dialect,
) {
  if (filter !== 'number') return eb.ref(column);
  return sql`CAST(${eb.ref(column)} AS ${sql.raw(dialect === 'mysql' ? 'CHAR' : 'TEXT')})`;
}
