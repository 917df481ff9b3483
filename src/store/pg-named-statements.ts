// Named (server-side prepared) statements on PostgreSQL for the queries that prepared() keeps.
// A statement sent without a name is parsed and planned by PostgreSQL on every run; on a 2-core
// machine where the database shares the CPU with the server, that was a third of a login's cost.
// pg keeps a named statement per connection and sends only Bind/Execute after its first use.
//
// Only SQL texts registered by prepared() get a name: they are a small, fixed set (one per query
// shape), so each connection holds a bounded number of statements. Everything else runs unnamed.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DatabaseError } from '../errors.ts';

/** The SQL texts to name, each with the hash its names are made of. */
const named = new Map<string, string>();

/** Marks an SQL text as one of the fixed set of hot queries (called by prepared()). */
export function nameStatement(sql: string): void {
  if (!named.has(sql)) named.set(sql, createHash('sha256').update(sql).digest('hex').slice(0, 32));
}

/**
 * PostgreSQL refuses to run a kept statement whose result columns changed, e.g. `select token.*`
 * after another node's migration added a column ("cached plan must not change result type").
 * Told by its code and the server routine, which are the same in every message language.
 */
function isStalePlan(e: unknown): boolean {
  const err = e as { code?: string; routine?: string; message?: string };
  return (
    err.code === '0A000' &&
    (err.routine === 'RevalidateCachedQuery' ||
      /cached plan must not change result type/.test(err.message ?? ''))
  );
}

/**
 * pg's Client with the hot queries named. A statement that became stale gets a new name on that
 * connection (its generation), so the next use prepares it again; outside a transaction the query
 * is sent again at once and the stale statement is deallocated. Inside a transaction, which the
 * error has aborted, the error reaches the caller: that transaction fails once per connection.
 */
export function namingClient(Client: typeof pg.Client): typeof pg.Client {
  return class NamingClient extends Client {
    /** SQL texts whose statement went stale on this connection, with how often. */
    readonly #generations = new Map<string, number>();

    // biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; this handles (text, values) and passes the rest on.
    override query(...args: any[]): any {
      const [text, values, callback] = args;
      if (typeof text !== 'string' || !Array.isArray(values) || callback !== undefined || !named.has(text))
        return super.query(...(args as Parameters<pg.Client['query']>));
      const run = () => super.query({ name: this.#name(text), text, values }) as Promise<pg.QueryResult>;
      return run().catch(async (e: unknown) => {
        if (!isStalePlan(e)) throw e;
        const stale = this.#name(text);
        this.#generations.set(text, (this.#generations.get(text) ?? 0) + 1);
        if (this.getTransactionStatus() !== 'I') throw e;
        const result = await run();
        await super.query(`DEALLOCATE "${stale}"`).catch(() => undefined);
        return result;
      });
    }

    #name(sql: string): string {
      return `authsrv_${named.get(sql)}_${this.#generations.get(sql) ?? 0}`;
    }
  };
}

/**
 * `named_statements=off` among the query parameters of a PostgreSQL URL turns the naming off, for
 * a connection pooler that does not keep prepared statements per client (PgBouncer in
 * transaction mode before 1.24, or with max_prepared_statements = 0). Returns the URL without
 * that parameter, which pg would not understand.
 */
export function namedStatementsSetting(url: string): { url: string; named: boolean } {
  const q = url.indexOf('?');
  if (q < 0) return { url, named: true };
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new DatabaseError(`The database URL has a malformed %-escape in its parameters: '${text}'`);
    }
  };
  let named = true;
  const kept: string[] = [];
  for (const param of url.slice(q + 1).split('&')) {
    const eq = param.indexOf('=');
    const key = decode(eq < 0 ? param : param.slice(0, eq));
    if (key !== 'named_statements') {
      kept.push(param);
      continue;
    }
    const value = decode(eq < 0 ? '' : param.slice(eq + 1)).toLowerCase();
    if (!['on', 'off', 'true', 'false', '1', '0'].includes(value))
      throw new DatabaseError(`named_statements in the database URL must be on or off, not '${value}'`);
    named = ['on', 'true', '1'].includes(value);
  }
  return { url: kept.length > 0 ? `${url.slice(0, q)}?${kept.join('&')}` : url.slice(0, q), named };
}
