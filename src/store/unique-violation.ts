// Telling a refused duplicate from other database errors: a service that lets a unique index decide
// between concurrent writers answers its own clear error when the index refuses the loser.

/** PostgreSQL unique_violation, MariaDB/MySQL ER_DUP_ENTRY, SQLite SQLITE_CONSTRAINT_UNIQUE. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { errno?: unknown; code?: unknown };
  return (
    e.code === '23505' ||
    e.code === 'ER_DUP_ENTRY' ||
    e.errno === 1062 ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}
