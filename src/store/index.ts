// The database: one Kysely instance on SQLite, PostgreSQL or MariaDB/MySQL, its schema and
// migrations, prepared statements and bulk inserts; and the one factory of database connections
// (pool.ts), which the SQL user stores use too.
export { reserveAuditIds } from './audit-ids.ts';
export { chunked, insertRows, rowsPerStatement } from './bulk-insert.ts';
export { databaseFiles, defaultDatabaseUrl, migrate, openDatabase, type Store } from './database.ts';
export type { Dialect } from './dialect.ts';
export { type DatabaseTarget, openPool, type PoolOptions } from './pool.ts';
export { prepared } from './prepared.ts';
export type {
  AuditTable,
  ChallengeTable,
  Database,
  PolicyTable,
  SmtpServerTable,
  TokenGroupTokenTable,
  TokenInfoTable,
  TokenOwnerTable,
  TokenRealmTable,
  TokenTable,
} from './schema.ts';
export { isTransientConflict, rehearse, runTransaction } from './transaction.ts';
export { isUniqueViolation } from './unique-violation.ts';
