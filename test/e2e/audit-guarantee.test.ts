// Audit and effect are never separated (issue 16, item 2), over HTTP on every dialect: an answer
// that cannot be rendered after a committed change still gets its audit row, which records the
// change and the failed answer; an audit row that cannot be written makes the request fail with the
// error envelope, and the log keeps the entry.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { INTERNAL_ERROR_TEXT } from '../../src/http/envelope.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import type { ApiResponse, TestServer } from '../helpers/server.ts';
import { initOk, tokenRow, useTokenServer } from '../helpers/token-fixture.ts';

const KEY = '3132333435363738393031323334353637383930';

describe.each(testDialects())('the audit row of every request on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(dialect, { reset: ['tokens', 'audit'] }, (t) => ({ s, admin } = t));
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Makes the server's signer fail for the texts `fails` picks: answers, or audit rows. */
  function breakSigner(fails: (text: string) => boolean) {
    const signer = s.rt.keys.signer;
    const real = signer.signAsync.bind(signer);
    vi.spyOn(signer, 'signAsync').mockImplementation(async (text: string) => {
      if (fails(text)) throw new Error('the security module is gone');
      return real(text);
    });
  }
  const isAnswer = (text: string) => text.includes('"jsonrpc"');
  const rowOf = (action: string) =>
    s.rt.store.db.selectFrom('audit').selectAll().where('action', '=', action).execute();
  const internalError = (r: ApiResponse) => {
    expect(r.status, r.text).toBe(500);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.result).toEqual({ status: false, error: { code: -500, message: INTERNAL_ERROR_TEXT } });
  };

  it('writes the row of a committed change whose answer could not be signed', async () => {
    await initOk(s, { type: 'hotp', otpkey: KEY, serial: 'AUD1' }, admin);
    breakSigner(isAnswer);
    const r = await s.call('POST', '/token/disable', { serial: 'AUD1' }, admin);
    internalError(r);
    expect(r.json.signature).toBeUndefined();
    expect((await tokenRow(s, 'AUD1')).active).toBe(0);
    expect(await rowOf('POST /token/disable')).toMatchObject([
      { success: 1, serial: 'AUD1', info: 'the answer failed: internal error' },
    ]);
  });

  it('writes the row of an accepted OTP value whose answer could not be signed', async () => {
    await initOk(s, { type: 'hotp', otpkey: KEY, serial: 'AUD2' }, admin);
    breakSigner(isAnswer);
    internalError(await s.call('POST', '/validate/check', { serial: 'AUD2', pass: hotp(KEY, 0) }));
    expect((await tokenRow(s, 'AUD2')).count).toBe(1);
    expect(await rowOf('POST /validate/check')).toMatchObject([
      {
        success: 1,
        authentication: 'ACCEPT',
        serial: 'AUD2',
        info: expect.stringMatching(/the answer failed/),
      },
    ]);
  });

  it('answers with the error envelope when the audit row cannot be written, and logs the entry', async () => {
    await initOk(s, { type: 'hotp', otpkey: KEY, serial: 'AUD3' }, admin);
    const logged = vi.spyOn(s.rt.log, 'error').mockImplementation(() => {});
    breakSigner((text) => !isAnswer(text));
    const r = await s.call('POST', '/token/disable', { serial: 'AUD3' }, admin);
    internalError(r);
    expect(typeof r.json.signature).toBe('string');
    expect(await rowOf('POST /token/disable')).toEqual([]);
    const entry = logged.mock.calls.find(([, message]) => String(message).startsWith('audit row could not'));
    expect(entry?.[0]).toMatchObject({
      audit: { action: 'POST /token/disable', serial: 'AUD3', success: true },
    });
  });
});
