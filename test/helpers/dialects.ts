// The databases a storage or API test runs on: SQLite always, PostgreSQL and MariaDB/MySQL when
// AUTHSRV_TEST_POSTGRES_URL / AUTHSRV_TEST_MYSQL_URL name a server. Each test gets a database of
// its own, created empty and dropped afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/**
 * The dialects of the CLI tests: SQLite alone, unless AUTHSRV_TEST_CLI_DIALECTS=all. A CLI test
 * checks the front end (options, prompts, output, exit codes); what it stores goes through the core
 * functions the HTTP and core tests run on every dialect, and each dialect's run of the CLI files
 * cost CI some 15 minutes (CI must stay under 40). The database's own commands (`authsrv db`) keep
 * every dialect.
 */
export function cliDialects(): DialectName[] {
  return process.env.AUTHSRV_TEST_CLI_DIALECTS === 'all' ? testDialects() : ['sqlite'];
}

export function testDialects(): DialectName[] {
  const out: DialectName[] = ['sqlite'];
  if (process.env.AUTHSRV_TEST_POSTGRES_URL) out.push('postgres');
  if (process.env.AUTHSRV_TEST_MYSQL_URL) out.push('mysql');
  return out;
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function withDatabase(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createTestDatabase(dialect: DialectName, dir?: string): Promise<TestDatabase> {
  const name = `authsrv_t_${randomBytes(6).toString('hex')}`;
  if (dialect === 'sqlite') {
    const own = dir === undefined;
    const base = dir ?? mkdtempSync(join(tmpdir(), 'authsrv-db-'));
    return {
      url: `sqlite:${join(base, `${name}.db`)}`,
      drop: async () => (own ? rmSync(base, { recursive: true, force: true }) : undefined),
    };
  }
  if (dialect === 'postgres') {
    const base = process.env.AUTHSRV_TEST_POSTGRES_URL!;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return {
      url: withDatabase(base, name),
      drop: async () => {
        const c = new pg.Client({ connectionString: base });
        await c.connect();
        // pg's Pool.end() resolves before its sockets are closed; a FORCE drop racing with them makes
        // the backend send a FATAL 57P01 to a client nobody listens to any more (an unhandled error).
        for (let i = 0; i < 50; i++) {
          const r = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
            name,
          ]);
          if (r.rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const base = process.env.AUTHSRV_TEST_MYSQL_URL!;
  const c = await createConnection(base);
  // The most awkward server default on purpose: the migrations must set utf8mb4 with a binary collation.
  await c.query(`CREATE DATABASE ${name} CHARACTER SET latin1 COLLATE latin1_swedish_ci`);
  await c.end();
  return {
    url: withDatabase(base, name),
    drop: async () => {
      const d = await createConnection(base);
      await d.query(`DROP DATABASE IF EXISTS ${name}`);
      await d.end();
    },
  };
}
