// Named (server-side prepared) statements on PostgreSQL for the queries that prepared() keeps.
// A statement sent without a name is parsed and planned by PostgreSQL on every run; on a 2-core
// machine where the database shares the CPU with the server, that was a third of a login's cost.
// pg keeps a named statement per connection and sends only Bind/Execute after its first use.
//
// Only SQL texts registered by prepared() get a name: they are a small, fixed set (one per query
// shape), so each connection holds a bounded number of statements. Everything else runs unnamed.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DatabaseError } from '../core/errors.ts';

const named = new Set<string>();

/** Marks an SQL text as one of the fixed set of hot queries (called by prepared()). */
export function nameStatement(sql: string): void {
  named.add(sql);
}

/**
 * PostgreSQL refuses to run a kept statement whose result columns changed, e.g. `select token.*`
 * after another node's migration added a column ("cached plan must not change result type").
 */
function isStalePlan(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return err.code === '0A000' && /cached plan must not change result type/.test(err.message ?? '');
}

/**
 * pg's Client with the hot queries named. A statement that became stale is prepared again under a
 * new name on that connection and the query is sent once more; inside a transaction, which the
 * error has aborted, the retry fails and the error reaches the caller (once per connection and
 * statement after a schema change).
 */
export function namingClient(Client: typeof pg.Client): typeof pg.Client {
  return class NamingClient extends Client {
    /** Bumped when a kept statement went stale: the next names are new to this connection. */
    #generation = 0;

    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; this handles (text, values) and passes the rest on.
    override query(...args: any[]): any {
      const [text, values, callback] = args;
      if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined || !named.has(text))
        return super.query(...(args as Parameters<pg.Client['query']>));
      const run = () =>
        super.query({ name: statementName(text, this.#generation), text, values }) as Promise<pg.QueryResult>;
      return run().catch((e: unknown) => {
        if (!isStalePlan(e)) throw e;
        this.#generation++;
        return run();
      });
    }
  };
}

function statementName(sql: string, generation: number): string {
  return `authsrv_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}_${generation}`;
}

/**
 * `named_statements=off` in a PostgreSQL URL turns the naming off (for a connection pooler that
 * does not keep prepared statements per client, such as PgBouncer before 1.21 in transaction
 * mode). Returns the URL without that parameter, which pg would not understand.
 */
export function namedStatementsSetting(url: string): { url: string; named: boolean } {
  const m = /([?&])named_statements=([^&]*)(&?)/.exec(url);
  if (!m) return { url, named: true };
  const value = decodeURIComponent(m[2]!).toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(value))
    throw new DatabaseError(`named_statements in the database URL must be on or off, not '${m[2]}'`);
  const rest = url.slice(0, m.index) + (m[3] ? m[1] : '') + url.slice(m.index + m[0].length);
  return { url: rest, named: ['on', 'true', '1'].includes(value) };
}
