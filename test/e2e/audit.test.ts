import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newAuditEntry, writeAudit } from '../../src/core/audit/index.ts';
import { issueJwt } from '../../src/core/auth/auth.ts';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { passwdRealm } from '../helpers/user-stores.ts';

const T0 = new Date('2026-04-01T08:00:00.000Z');

describe.each(testDialects())('audit API on %s', (dialect) => {
  let s: TestServer;
  let now = T0;
  let token: string;
  beforeAll(async () => {
    s = await startTestServer({ dialect, clock: () => new Date(now) });
  });
  afterAll(async () => s?.close());
  beforeEach(async () => {
    now = T0;
    await s.rt.store.db.deleteFrom('audit').execute();
    token = await s.adminToken();
  });

  const dbRows = () => s.rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
  const lastRow = async () => (await dbRows()).at(-1)!;

  it('writes exactly one row per request with the request facts', async () => {
    const before = (await dbRows()).length;
    const res = await fetch(`${s.url}/system/PrependPin`, {
      headers: { Authorization: token, 'User-Agent': 'privacyidea-cp/3.1.4 Windows/10' },
    });
    expect(res.status).toBe(200);
    const rows = await dbRows();
    expect(rows).toHaveLength(before + 1);
    const r = rows.at(-1)!;
    expect(r).toMatchObject({
      action: 'GET /system/<key>',
      success: 1,
      administrator: 'admin',
      client: '127.0.0.1',
      user_agent: 'privacyidea-cp',
      user_agent_version: '3.1.4',
      node: 'test-node',
      date: T0.toISOString(),
      startdate: T0.toISOString(),
    });
    expect(Number(r.duration)).toBeGreaterThanOrEqual(0);
    expect(r.signature).toMatch(/^rsa_sha256_pss:[0-9a-f]+$/);
  });

  it('records the login itself, successful or not', async () => {
    expect((await s.call('POST', '/auth', { username: 'admin', password: 'wrong' })).status).toBe(401);
    const failed = await lastRow();
    expect(failed).toMatchObject({
      action: 'POST /auth',
      success: 0,
      user: 'admin',
      authentication: 'REJECT',
    });
    expect(failed.info).toContain('Wrong credentials');
    await s.adminToken();
    expect(await lastRow()).toMatchObject({
      action: 'POST /auth',
      success: 1,
      administrator: 'admin',
      authentication: 'ACCEPT',
    });
  });

  it('records failed requests with success 0 and the error in info', async () => {
    const r = await s.call('DELETE', '/system/nosuchkey', {}, token);
    expect(r.status).toBe(200);
    expect(r.json.result.status).toBe(false);
    expect(r.json.result.error.code).toBe(601);
    expect(await lastRow()).toMatchObject({
      action: 'DELETE /system/<key>',
      success: 0,
      administrator: 'admin',
    });
    expect((await lastRow()).info).toContain('nosuchkey');

    const unauth = await s.call('GET', '/audit/');
    expect(unauth.status).toBe(401);
    const row = await lastRow();
    expect(row).toMatchObject({ action: 'GET /audit/', success: 0, administrator: '' });
    expect(row.info).toContain('Missing Authorization header');
  });

  it('answers GET /audit/ with privacyIDEA entries and paging', async () => {
    for (let i = 0; i < 4; i++) await s.call('GET', '/system/', {}, token);
    const r = await s.call('GET', '/audit/', { page_size: '3' }, token);
    expect(r.status).toBe(200);
    const v = r.json.result.value;
    expect(Object.keys(v).sort()).toEqual(['auditcolumns', 'auditdata', 'count', 'current', 'next', 'prev']);
    // /auth of beforeEach, four GET /system/; the GET /audit/ itself is written after it answers.
    expect(v.count).toBe(5);
    expect(v.current).toBe(1);
    expect(v.prev).toBeNull();
    expect(v.next).toBe(2);
    expect(v.auditdata).toHaveLength(3);
    expect(v.auditcolumns[0]).toBe('number');
    const e = v.auditdata[0];
    // The wire form is serialised with sorted keys (for the response signature).
    expect(Object.keys(e).sort()).toEqual(
      [
        'number',
        'date',
        'sig_check',
        'missing_line',
        'action',
        'authentication',
        'success',
        'serial',
        'token_type',
        'container_serial',
        'container_type',
        'user',
        'realm',
        'resolver',
        'administrator',
        'action_detail',
        'info',
        'privacyidea_server',
        'policies',
        'client',
        'user_agent',
        'user_agent_version',
        'log_level',
        'clearance_level',
        'startdate',
        'duration',
        'thread_id',
        'imported_from',
        'imported_number',
        'imported_check',
      ].sort(),
    );
    expect(e).toMatchObject({
      action: 'GET /system/',
      success: 1,
      sig_check: 'OK',
      missing_line: 'OK',
      privacyidea_server: 'test-node',
      administrator: 'admin',
    });
    expect(typeof e.number).toBe('number');
    expect(typeof e.duration).toBe('number');

    const p2 = (await s.call('GET', '/audit/', { page_size: '3', page: '2' }, token)).json.result.value;
    expect(p2).toMatchObject({ count: 6, current: 2, prev: 1, next: null });
    expect(p2.auditdata).toHaveLength(3);
    const asc = (await s.call('GET', '/audit/', { sortorder: 'asc', page_size: '2' }, token)).json.result
      .value;
    expect(asc.auditdata.map((x: { action: string }) => x.action)).toEqual(['POST /auth', 'GET /system/']);
    expect(asc.auditdata[0].number).toBeLessThan(asc.auditdata[1].number);
  });

  it('filters exactly, with wildcards, negated and by success', async () => {
    await s.call('GET', '/system/', {}, token);
    await s.call('DELETE', '/system/nosuchkey', {}, token);
    await s.call('GET', '/system/random', { len: '4' }, token);
    const count = async (params: Record<string, string>) =>
      (await s.call('GET', '/audit/', params, token)).json.result.value.count;
    // Rows so far: POST /auth, GET /system/, DELETE (failed), GET /system/random, plus earlier /audit/ calls.
    expect(await count({ action: 'GET /system/' })).toBe(1);
    expect(await count({ action: 'GET /system/*' })).toBe(2);
    expect(await count({ action: '*/system/*' })).toBe(3);
    expect(await count({ action: '!GET /audit/', success: '1' })).toBe(3);
    expect(await count({ success: '0' })).toBe(1);
    expect(await count({ success: '0', action: 'DELETE*' })).toBe(1);
    expect(await count({ action: '!*/system/*', success: '1' })).toBe(
      1 + 6, // POST /auth and the six GET /audit/ calls before this one
    );
    expect(await count({ administrator: 'admin', action: 'GET /audit/' })).toBe(7);
    expect(await count({ privacyidea_server: 'nonode' })).toBe(0);
  });

  it('limits by timelimit', async () => {
    await s.call('GET', '/system/', {}, token);
    now = new Date(T0.getTime() + 2 * 3600_000);
    token = await s.adminToken();
    await s.call('GET', '/system/', {}, token);
    const count = async (timelimit: string) =>
      (await s.call('GET', '/audit/', { timelimit, action: 'GET /system/' }, token)).json.result.value.count;
    expect(await count('1h')).toBe(1);
    expect(await count('1d')).toBe(2);
    expect(await count('1m')).toBe(1);
    expect(await count('150m')).toBe(2);
  });

  it('refuses bad paging, sort order and timelimit with ERR905 and HTTP 200', async () => {
    const cases: Record<string, string>[] = [
      { page_size: 'abc' },
      { page: 'x' },
      { page_size: '100000' },
      { sortorder: 'sideways' },
      { timelimit: 'yesterday' },
      { timelimit: '5w' },
      { number: 'one' },
    ];
    for (const params of cases) {
      const r = await s.call('GET', '/audit/', params, token);
      expect(r.status, JSON.stringify(params)).toBe(200);
      expect(r.json.result.status).toBe(false);
      expect(r.json.result.error.code).toBe(905);
      expect(r.json.result.error.message).toMatch(/^ERR905: /);
      expect(r.json.detail).toBeNull();
    }
    // privacyIDEA's defaults for values below 1.
    const ok = await s.call('GET', '/audit/', { page: '0', page_size: '0' }, token);
    expect(ok.json.result.value.current).toBe(1);
  });

  it('shows sig_check FAIL for a row changed in the database and missing_line FAIL after a deleted row', async () => {
    for (let i = 0; i < 3; i++) await s.call('GET', '/system/', {}, token);
    const ids = (await dbRows()).map((r) => r.id);
    expect(ids).toHaveLength(4);
    await s.rt.store.db.updateTable('audit').set({ success: 0 }).where('id', '=', ids[1]!).execute();
    await s.rt.store.db.deleteFrom('audit').where('id', '=', ids[2]!).execute();
    const data = (await s.call('GET', '/audit/', { sortorder: 'asc' }, token)).json.result.value.auditdata;
    const byId = new Map(data.map((e: { number: number }) => [e.number, e]));
    expect(byId.get(ids[0])).toMatchObject({ sig_check: 'OK', missing_line: 'OK' });
    expect(byId.get(ids[1])).toMatchObject({ sig_check: 'FAIL', missing_line: 'OK', success: 0 });
    expect(byId.has(ids[2])).toBe(false);
    expect(byId.get(ids[3])).toMatchObject({ sig_check: 'OK', missing_line: 'FAIL' });
  });

  it('downloads CSV: one single-quoted line per row, oldest first, filters applied', async () => {
    await s.call('GET', '/system/', {}, token);
    await s.call('DELETE', '/system/nosuchkey', {}, token);
    const res = await fetch(`${s.url}/audit/export.csv`, { headers: { Authorization: token } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=export.csv');
    const text = await res.text();
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    const rows = await dbRows();
    // The download's own row is written before its body streams, so it may be the last line.
    const listed = rows.filter((r) => r.id <= rows.at(-1)!.id);
    expect(lines.length === listed.length || lines.length === listed.length - 1).toBe(true);
    for (const [i, line] of lines.entries()) {
      const fields = line.split("','");
      expect(line.startsWith("'")).toBe(true);
      expect(line.endsWith("'")).toBe(true);
      expect(fields).toHaveLength(30);
      expect(fields[0]).toBe(`'${listed[i]!.id}`);
      expect(fields[4]).toBe(listed[i]!.action);
      expect(fields[2]).toBe('OK');
    }
    expect(lines[0]).toContain("'POST /auth'");
    expect(lines[1]).toContain("'GET /system/'");

    const filtered = await fetch(`${s.url}/audit/failed.csv?success=0`, {
      headers: { Authorization: token },
    });
    const flines = (await filtered.text()).trimEnd().split('\n');
    expect(flines).toHaveLength(1);
    expect(flines[0]).toContain("'DELETE /system/<key>'");
    expect(filtered.headers.get('content-disposition')).toBe('attachment; filename=failed.csv');
    expect(await lastRow()).toMatchObject({ action: 'GET /audit/<csvfile>', success: 1 });
  });

  it('refuses a bad CSV filter with an envelope, not a broken file', async () => {
    const r = await s.call('GET', '/audit/x.csv', { timelimit: 'never' }, token);
    expect(r.status).toBe(200);
    expect(r.json.result.error.code).toBe(905);
  });

  it('shows users only their own rows; refuses them the CSV download; refuses callers without a JWT', async () => {
    // A user's JWT stands while its realm does.
    await passwdRealm(s, 'r1');
    const userToken = await issueJwt(
      s.rt,
      { role: 'user', username: 'bob', realm: 'r1', authtype: 'password', client: '' },
      [],
    );
    for (const [user, realm] of [
      ['bob', 'r1'],
      ['bob', 'r2'],
      ['alice', 'r1'],
    ]) {
      const e = newAuditEntry('POST /validate/check', new Date(now), '10.0.0.9');
      Object.assign(e, { user, realm });
      await writeAudit(s.rt, e);
    }
    const mine = (await s.call('GET', '/audit/', { page_size: '1000' }, userToken)).json.result.value;
    expect(mine.count).toBeGreaterThanOrEqual(1);
    expect(
      mine.auditdata.every((e: { user: string; realm: string }) => e.user === 'bob' && e.realm === 'r1'),
    ).toBe(true);
    // A filter cannot widen the view.
    const other = (await s.call('GET', '/audit/', { user: 'alice', realm: '*' }, userToken)).json.result
      .value;
    expect(other.count).toBe(0);
    const csv = await s.call('GET', '/audit/x.csv', {}, userToken);
    expect(csv.status).toBe(401);
    expect(csv.json.result.error.code).toBe(4306);
    for (const path of ['/audit/', '/audit/x.csv']) {
      expect((await s.call('GET', path)).json.result.error.code).toBe(4033);
    }
  });

  it("records an enrollment's token type: the token's own, the type asked for when it fails", async () => {
    const init = (params: Record<string, string>) => s.call('POST', '/token/init', params, token);
    expect((await init({ type: 'TOTP', serial: 'AUDTT1', genkey: '1' })).json.result.status).toBe(true);
    expect(await lastRow()).toMatchObject({ action: 'POST /token/init', success: 1, token_type: 'totp' });
    expect((await init({ type: 'NoSuchType' })).json.result.error.code).toBe(1610);
    expect(await lastRow()).toMatchObject({ success: 0, token_type: 'NoSuchType' });
    expect((await init({ genkey: '1', realm: 'nosuchrealm' })).json.result.status).toBe(false);
    expect(await lastRow()).toMatchObject({ success: 0, token_type: 'hotp' });
  });

  it('keeps rows written with over-long values readable on every dialect', async () => {
    const e = newAuditEntry(`POST /${'p'.repeat(500)}`, new Date(now), '2001:db8::1'.repeat(10));
    e.info = 'i'.repeat(5000);
    e.user_agent = 'u'.repeat(1000);
    const id = await writeAudit(s.rt, e);
    const r = await s.call('GET', '/audit/', { number: String(id) }, token);
    const entry = r.json.result.value.auditdata[0];
    expect(entry.sig_check).toBe('OK');
    expect(entry.action).toHaveLength(100);
    expect(entry.info).toHaveLength(1000);
    expect(entry.client).toHaveLength(50);
  });

  it('audits a request whose parameters a database could not store', async () => {
    const r = await s.call('POST', '/system/setConfig', { 'bad\u0000key': 'v' }, token);
    expect(r.json.result.status).toBe(false);
    const row = await lastRow();
    expect(row).toMatchObject({ action: 'POST /system/setConfig', success: 0 });
    expect(row.info).not.toContain('\u0000');
  });
});
