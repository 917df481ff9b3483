// The SQL user store (sqlresolver), in files of one job: settings.ts (what the API shows),
// config.ts and where.ts (reading the settings), connection.ts (the database, through the store's
// pool factory, and its time limits), conditions.ts (the WHERE clauses), store.ts (the user
// store), resolver.ts (the kind). Only the kind leaves this folder.
export { sqlResolver } from './resolver.ts';
