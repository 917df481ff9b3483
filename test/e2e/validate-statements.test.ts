// The SQL statements of one successful /validate/check (issue 6, speed): every statement is
// recorded with the first src/ frame that issued it. The test bounds the statements of the token
// part (token, tokeninfo, tokenowner, tokenrealm, clients), so that a change that adds a round trip
// to every login shows up here, and asks that a token attached to no machine costs no statement of
// the machine tables (issue 18: which tokens are attached for offline is kept in memory).
// AUTHSRV_LOG_STATEMENTS=1 prints the whole list.
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';

const KEY = '3132333435363738393031323334353637383930';
const TOKEN_TABLES = /\b(token|tokeninfo|tokenowner|tokenrealm|clients)\b/;
const MACHINE_TABLES = /\bmachinetoken(_option)?\b/;

interface Statement {
  sql: string;
  from: string;
}

/** Records the compiled SQL of every query of `s`'s store, with the src/ frames that issued it. */
function recordStatements(s: TestServer): { take(): Statement[] } {
  let seen: Statement[] = [];
  const original = s.rt.store.db;
  const executor = original.getExecutor();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      const { sql } = executor.compileQuery(args.node, args.queryId);
      const frames = (new Error().stack ?? '')
        .split('\n')
        .map((l) => /\/src\/(core|http|store)\/([\w./-]+):(\d+)/.exec(l))
        .filter((m) => m !== null)
        .map((m) => `${m[2]}:${m[3]}`);
      seen.push({ sql, from: frames.slice(0, 2).join(' < ') });
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      return args.result;
    },
  };
  s.rt.store.db = original.withPlugin(plugin);
  return {
    take() {
      const out = seen;
      seen = [];
      return out;
    },
  };
}

function print(title: string, list: Statement[]): void {
  if (!process.env.AUTHSRV_LOG_STATEMENTS) return;
  const lines = list.map((x, i) => `${String(i + 1).padStart(2)}. ${x.sql.slice(0, 160)}\n      ${x.from}`);
  process.stdout.write(`\n${title}: ${list.length} statements\n${lines.join('\n')}\n`);
}

describe.each(testDialects())('statements of /validate/check on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  let rec: { take(): Statement[] };

  useTokenServer(dialect, { realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)] } }, (t) => {
    ({ s, op, admin } = t);
  });
  beforeAll(async () => {
    await initToken(op, { type: 'hotp', otpkey: KEY, user: 'alice', realm: 'realm1', serial: 'STMHOTP1' });
    await initToken(op, { type: 'spass', user: 'bob', realm: 'realm1', serial: 'STMSPASS1' });
    await initToken(op, { type: 'hotp', otpkey: KEY, serial: 'STMOFF1' });
    rec = recordStatements(s);
    // One check first: the client row exists and start-up reads are done, as on a busy server.
    await s.call('POST', '/validate/check', { user: 'bob', realm: 'realm1', pass: '' });
    await s.call('POST', '/validate/check', { user: 'alice', realm: 'realm1', pass: hotp(KEY, 0) });
    rec.take();
  });

  for (const [name, params, result] of [
    ['HOTP', () => ({ user: 'alice', realm: 'realm1', pass: hotp(KEY, 1) }), 'ACCEPT'],
    ['spass', () => ({ user: 'bob', realm: 'realm1', pass: '' }), 'ACCEPT'],
    ['wrong HOTP', () => ({ user: 'alice', realm: 'realm1', pass: '000000' }), 'REJECT'],
  ] as const) {
    it(`a ${name} check reads and writes the token tables in few statements`, async () => {
      const r = await s.call('POST', '/validate/check', params());
      expect(r.json.result.authentication, r.text).toBe(result);
      const list = rec.take();
      print(`${dialect} ${name}`, list);
      const tokenPart = list.filter((x) => TOKEN_TABLES.test(x.sql));
      // The token rows with owner, realms and tokeninfo in one; on success the OTP compare-and-set,
      // count_auth and count_auth_success in one statement, last_auth; on failure the fail counter
      // (MariaDB reads it back) and count_auth.
      expect(tokenPart.length, tokenPart.map((x) => `${x.sql} (${x.from})`).join('\n')).toBeLessThanOrEqual(
        result === 'REJECT' && dialect !== 'mysql' ? 3 : 4,
      );
      expect(list.filter((x) => MACHINE_TABLES.test(x.sql))).toEqual([]);
    });
  }

  it('reads the attachments of a token attached for offline only, once another token is attached', async () => {
    const r = await s.call(
      'POST',
      '/machine/token',
      { serial: 'STMOFF1', application: 'offline', count: '2', rounds: '10' },
      admin,
    );
    expect(r.json.result.status, r.text).toBe(true);
    rec.take();
    // The first check after the attachment loads which tokens are attached for offline, once.
    let counter = 2;
    const alice = () =>
      s.call('POST', '/validate/check', { user: 'alice', realm: 'realm1', pass: hotp(KEY, counter++) });
    expect((await alice()).json.result.value).toBe(true);
    const loads = rec.take().filter((x) => MACHINE_TABLES.test(x.sql));
    expect(loads.map((x) => x.sql)).toEqual([expect.stringMatching(/^select distinct/)]);
    const unattached = await alice();
    expect(unattached.json.result.value).toBe(true);
    expect(unattached.json.auth_items).toBeUndefined();
    expect(rec.take().filter((x) => MACHINE_TABLES.test(x.sql))).toEqual([]);
    // The attached token reads its attachments and gets its items.
    const attached = await s.call('POST', '/validate/check', { serial: 'STMOFF1', pass: hotp(KEY, 0) });
    expect(attached.json.auth_items.offline[0].serial, attached.text).toBe('STMOFF1');
    expect(rec.take().filter((x) => MACHINE_TABLES.test(x.sql)).length).toBeGreaterThan(0);
  });
});
