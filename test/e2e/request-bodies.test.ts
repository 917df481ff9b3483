// Hostile request bodies over HTTP on every dialect (issue 16, item 2): a JSON value nested
// thousands of levels deep and bodies with too many parameters are refused with HTTP 400 and the
// error envelope before any route runs, so nothing changes (the token stays enabled, the OTP
// value is not consumed, no audit row) and the refusal costs little.
import { describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import type { ApiResponse, TestServer } from '../helpers/server.ts';
import { initOk, tokenRow, useTokenServer, validateOk } from '../helpers/token-fixture.ts';

const KEY = '3132333435363738393031323334353637383930';
const DEEP = `${'['.repeat(5000)}1${']'.repeat(5000)}`;

describe.each(testDialects())('request bodies on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(dialect, { reset: ['tokens', 'audit'] }, (t) => ({ s, admin } = t));

  async function send(path: string, contentType: string, body: string, token?: string): Promise<ApiResponse> {
    const headers: Record<string, string> = { 'Content-Type': contentType };
    if (token) headers.Authorization = token;
    const res = await fetch(s.url + path, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: JSON.parse(text) };
  }
  const refused = (r: ApiResponse, message: string) => {
    expect(r.status, r.text).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.result).toEqual({ status: false, error: { code: 905, message: `ERR905: ${message}` } });
  };
  const TOO_DEEP = 'The JSON request body is nested deeper than 32 levels';
  const TOO_MANY = 'The request has more than 1000 parameters';
  const auditActions = async () =>
    (await s.rt.store.db.selectFrom('audit').select('action').execute()).map((r) => r.action);

  it('refuses a deeply nested nonce on /validate/check: the OTP value is not consumed', async () => {
    await initOk(s, { type: 'hotp', otpkey: KEY, serial: 'DEEP1' }, admin);
    await s.rt.store.db.deleteFrom('audit').execute();
    const body = `{"serial": "DEEP1", "pass": "${hotp(KEY, 0)}", "nonce": ${DEEP}}`;
    refused(await send('/validate/check', 'application/json', body), TOO_DEEP);
    expect((await tokenRow(s, 'DEEP1')).count).toBe(0);
    expect(await auditActions()).toEqual([]);
    const r = await validateOk(s, { serial: 'DEEP1', pass: hotp(KEY, 0) });
    expect(r.json.result.authentication).toBe('ACCEPT');
  });

  it('refuses a deeply nested value on POST /token/disable: the token stays enabled', async () => {
    await initOk(s, { type: 'hotp', otpkey: KEY, serial: 'DEEP2' }, admin);
    await s.rt.store.db.deleteFrom('audit').execute();
    for (const type of ['application/json', 'text/plain']) {
      refused(await send('/token/disable', type, `{"serial": "DEEP2", "nonce": ${DEEP}}`, admin), TOO_DEEP);
    }
    expect((await tokenRow(s, 'DEEP2')).active).toBe(1);
    expect(await auditActions()).toEqual([]);
  });

  it('refuses 100 000 form parameters quickly, and more than 1000 from any body kind', async () => {
    await initOk(s, { type: 'hotp', otpkey: KEY, serial: 'MANY1' }, admin);
    const pairs = Array.from({ length: 100_000 }, (_, i) => `p${i}=v`).join('&');
    const started = performance.now();
    const form = `serial=MANY1&pass=${hotp(KEY, 0)}&${pairs}`;
    refused(await send('/validate/check', 'application/x-www-form-urlencoded', form), TOO_MANY);
    expect(performance.now() - started).toBeLessThan(2000);
    const json = JSON.stringify(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i])));
    refused(await send('/validate/check', 'application/json', json), TOO_MANY);
    const multipart = new FormData();
    for (let i = 0; i < 1001; i++) multipart.append(`f${i}`, 'v');
    const res = await fetch(`${s.url}/validate/check`, { method: 'POST', body: multipart });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { result: { error: { message: string } } }).result.error.message).toBe(
      `ERR905: ${TOO_MANY}`,
    );
    expect((await tokenRow(s, 'MANY1')).count).toBe(0);
  });
});
