// The database products authsrv runs on.
export type Dialect = 'sqlite' | 'postgres' | 'mysql';
