// The WHERE conditions of an SQL resolver's queries: exact and wildcard matches of request values,
// always bound as parameters, and the parsed Where setting.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../../store/index.ts';
import { LIKE_ESCAPE, likeLiteral, likeWildcard } from '../../wildcard.ts';
import type { WhereCondition } from './where.ts';

const ESCAPE = sql.lit(LIKE_ESCAPE);

export function equals(dialect: Dialect, column: string, value: string): Expression<SqlBool> {
  const ref = sql.ref(column);
  // MySQL compares a number column with text by converting the text to a number ('5abc' and 'abc'
  // would find the users 5 and 0) and ignores trailing blanks in `=` ('alice ' is alice). The
  // second comparison, a LIKE without wildcards, is exact in both respects; the first keeps the index.
  if (dialect === 'mysql') {
    return sql<SqlBool>`(${ref} = ${value} AND CAST(${ref} AS CHAR) LIKE ${likeLiteral(value)} ESCAPE ${ESCAPE})`;
  }
  return sql<SqlBool>`${ref} = ${value}`;
}

export function matches(dialect: Dialect, column: string, pattern: string): Expression<SqlBool> {
  if (!pattern.includes('*')) return equals(dialect, column, pattern);
  // `*` is the only wildcard: % and _ in the value are literal.
  const like = likeWildcard(pattern);
  const ref = sql.ref(column);
  if (dialect === 'postgres') return sql<SqlBool>`CAST(${ref} AS TEXT) ILIKE ${like} ESCAPE ${ESCAPE}`;
  return sql<SqlBool>`${ref} LIKE ${like} ESCAPE ${ESCAPE}`;
}

export function whereFilter(where: readonly WhereCondition[]): Expression<SqlBool>[] {
  return where.map((c) => {
    const ref = sql.ref(c.column);
    switch (c.op) {
      case 'is null':
        return sql<SqlBool>`${ref} IS NULL`;
      case 'is not null':
        return sql<SqlBool>`${ref} IS NOT NULL`;
      default:
        // The operator comes from the parser's fixed list, never from the setting's text.
        return sql<SqlBool>`${ref} ${sql.raw(c.op.toUpperCase())} ${c.value}`;
    }
  });
}
