// The token types applspec, daypassword, motp, sshkey, question, indexedsecret, tan, paper and
// yubikey over HTTP (reference 3.1, 4.5):
// enrollment through POST /token/init and, where the type authenticates, POST /validate/check
// with values computed here independently of src/tokens.
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { removeConfig } from '../helpers/config.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import type { TestServer } from '../helpers/server.ts';
import { initOk, useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';
import { buildOtp } from '../helpers/yubico.ts';

const KEY = '3132333435363738393031323334353637383930';

function motp(epochMs: number, secret: string, pin: string): string {
  return createHash('md5')
    .update(`${Math.floor(epochMs / 10000)}${secret}${pin}`)
    .digest('hex')
    .slice(0, 6);
}

function sshEd25519(): string {
  const field = (b: Buffer) => {
    const n = Buffer.alloc(4);
    n.writeUInt32BE(b.length);
    return Buffer.concat([n, b]);
  };
  return Buffer.concat([field(Buffer.from('ssh-ed25519')), field(randomBytes(32))]).toString('base64');
}

describe.each(testDialects())('token types on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let now = new Date('2026-03-01T12:00:05Z');

  useTokenServer(dialect, { clock: () => now, reset: ['tokens'] }, (t) => ({ s, admin } = t));
  afterEach(() => {
    now = new Date('2026-03-01T12:00:05Z');
  });

  const init = async (params: Record<string, string>) => (await initOk(s, params, admin)).json.detail;
  const get = async (serial: string) => ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0];
  const check = async (params: Record<string, string>) =>
    (await validateOk(s, params)).json.result.value as boolean;

  it('applspec: requires service_id, stores it, and authenticates with PIN + password', async () => {
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'applspec', otpkey: 'app-pass' }, admin),
      905,
      "Missing parameter: 'service_id'",
    );
    expect(await s.rt.store.db.selectFrom('token').selectAll().execute()).toEqual([]);
    const d = await init({ type: 'applspec', otpkey: 'app-pass', service_id: 'mail', pin: '1234' });
    expect(d.serial).toMatch(/^ASPW[0-9A-F]{8}$/);
    expect(d.password).toBe('app-pass');
    const t = await get(d.serial);
    expect(t.tokentype).toBe('applspec');
    expect(t.otplen).toBe(8);
    expect(t.info.service_id).toBe('mail');
    expect(await check({ serial: d.serial, pass: '1234app-pass', service_id: 'mail' })).toBe(true);
    expect(await check({ serial: d.serial, pass: '1234app-pass', service_id: 'mail' })).toBe(true);
    expect(await check({ serial: d.serial, pass: '1234app-pasX', service_id: 'mail' })).toBe(false);
    expect(await check({ serial: d.serial, pass: '0000app-pass', service_id: 'mail' })).toBe(false);
  });

  it('applspec: generates a 23-character password', async () => {
    const d = await init({ type: 'applspec', genkey: '1', service_id: 'vpn' });
    expect(d.password).toMatch(/^[1-9a-km-zA-HJ-NP-Z]{23}$/);
    expect(await check({ serial: d.serial, pass: d.password, service_id: 'vpn' })).toBe(true);
  });

  it('daypassword: the value of the day, usable several times that day only', async () => {
    const d = await init({ type: 'daypassword', otpkey: KEY, timeStep: '1d', pin: 'pp' });
    expect(d.serial).toMatch(/^DYPW/);
    expect(d.googleurl.value).toContain('period=86400');
    const t = await get(d.serial);
    expect(t.info.timeStep).toBe('86400');
    expect(t.info.hashlib).toBe('sha1');
    const step = Math.floor(now.getTime() / 1000 / 86400);
    const v = hotp(KEY, step);
    expect(await check({ serial: d.serial, pass: `pp${v}` })).toBe(true);
    expect(await check({ serial: d.serial, pass: `pp${v}` })).toBe(true);
    now = new Date('2026-03-01T23:59:00Z');
    expect(await check({ serial: d.serial, pass: `pp${v}` })).toBe(true);
    expect(await check({ serial: d.serial, pass: `pp${hotp(KEY, step + 1)}` })).toBe(false);
    now = new Date('2026-03-02T00:00:01Z');
    expect(await check({ serial: d.serial, pass: `pp${v}` })).toBe(false);
    expect(await check({ serial: d.serial, pass: `pp${hotp(KEY, step + 1)}` })).toBe(true);
  });

  it('daypassword: refuses a malformed timeStep', async () => {
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'daypassword', otpkey: KEY, timeStep: 'often' }, admin),
      905,
    );
  });

  it('motp: requires motppin, authenticates with PIN + mOTP value, once per value', async () => {
    const secret = '0123456789abcdef';
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'motp', otpkey: secret }, admin),
      905,
      "Missing parameter: 'motppin'",
    );
    const d = await init({ type: 'motp', otpkey: secret, motppin: '4711', pin: 'pp' });
    expect(d.serial).toMatch(/^PIMO/);
    expect(d.otpkey.value).toBe(`seed://${secret}`);
    expect(d.motpurl.value).toBe(`motp://privacyidea:${d.serial}?secret=${secret}`);
    const t = await get(d.serial);
    expect(t.otplen).toBe(6);
    expect(JSON.stringify(t)).not.toContain('4711');
    const v = motp(now.getTime(), secret, '4711');
    expect(await check({ serial: d.serial, pass: `pp${motp(now.getTime(), secret, '0000')}` })).toBe(false);
    expect(await check({ serial: d.serial, pass: `pp${v}` })).toBe(true);
    expect(await check({ serial: d.serial, pass: `pp${v}` })).toBe(false);
    // A minute later, a value from 30 s ago is newer than the used one and within the window.
    const later = now.getTime() + 60_000;
    now = new Date(later);
    expect(await check({ serial: d.serial, pass: `pp${motp(later - 30_000, secret, '4711')}` })).toBe(true);
    expect(await check({ serial: d.serial, pass: `pp${motp(later - 190_000, secret, '4711')}` })).toBe(false);
  });

  it('sshkey: enrolls the public key and never authenticates', async () => {
    const key = `ssh-ed25519 ${sshEd25519()} alice@laptop`;
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'sshkey', sshkey: 'ssh-rsa AAAA' }, admin),
      905,
    );
    expectServiceError(await s.call('POST', '/token/init', { type: 'sshkey' }, admin), 905);
    const d = await init({ type: 'sshkey', sshkey: key });
    expect(d.serial).toMatch(/^SSHK/);
    const t = await get(d.serial);
    expect(t.tokentype).toBe('sshkey');
    expect(t.info.sshkey).toBe(key);
    expect(t.description).toBe('alice@laptop');
    expect(await check({ serial: d.serial, pass: '' })).toBe(false);
    expect(await check({ serial: d.serial, pass: 'anything-at-all' })).toBe(false);
    const trigger = await s.call('POST', '/validate/triggerchallenge', { serial: d.serial }, admin);
    expect(ok(trigger)).toBe(0);
  });

  it('question: enrolls the questionnaire without showing the answers; the PIN starts a challenge', async () => {
    const questions = JSON.stringify({ 'Your first pet?': 'Rex', 'Your town?': 'Berlin' });
    expectServiceError(await s.call('POST', '/token/init', { type: 'question' }, admin), 905);
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'question', questions: 'no json' }, admin),
      905,
    );
    const d = await init({ type: 'question', questions, pin: 'qpin' });
    expect(d.serial).toMatch(/^QUST/);
    const t = await get(d.serial);
    expect(JSON.stringify(t)).not.toContain('Berlin');
    const r = await s.call('POST', '/validate/check', { serial: d.serial, pass: 'qpin' });
    expect(r.json.result.value).toBe(false);
    expect(r.json.detail.transaction_id).toMatch(/^\d{20}$/);
    expect(r.json.detail.multi_challenge).toHaveLength(1);
  });

  // Needs validate.ts to call TokenType.challenge() and checkResponse() (see the report).
  it('question: the challenge message is one of the questions and its answer authenticates', async () => {
    const questions = { 'Your first pet?': 'Rex', 'Your home town?': 'Oslo' };
    const d = await init({ type: 'question', questions: JSON.stringify(questions), pin: '55' });
    const r = await s.call('POST', '/validate/check', { serial: d.serial, pass: '55' });
    const detail = r.json.detail;
    expect(r.json.result.value).toBe(false);
    const asked = detail.multi_challenge[0].message as keyof typeof questions;
    expect(Object.keys(questions)).toContain(asked);
    const wrong = await s.call('POST', '/validate/check', {
      serial: d.serial,
      pass: 'nope',
      transaction_id: detail.transaction_id,
    });
    expect(wrong.json.result.value).toBe(false);
    const again = await s.call('POST', '/validate/check', { serial: d.serial, pass: '55' });
    const tid = again.json.detail.transaction_id;
    const q = again.json.detail.multi_challenge[0].message as keyof typeof questions;
    expect(await check({ serial: d.serial, pass: questions[q], transaction_id: tid })).toBe(true);
  });

  it('indexedsecret: the challenge asks positions of the secret and their characters authenticate', async () => {
    const secret = 'abcdefghij';
    const d = await init({ type: 'indexedsecret', otpkey: secret, pin: '77' });
    const r = await s.call('POST', '/validate/check', { serial: d.serial, pass: '77' });
    const message: string = r.json.detail.multi_challenge[0].message;
    const m = /positions ([\d,]+) from/.exec(message);
    expect(m).not.toBeNull();
    const answer = m![1]!
      .split(',')
      .map((p) => secret[Number(p) - 1])
      .join('');
    // No single-shot login with PIN and characters.
    expect(await check({ serial: d.serial, pass: `77${answer}` })).toBe(false);
    expect(
      await check({ serial: d.serial, pass: answer, transaction_id: r.json.detail.transaction_id }),
    ).toBe(true);
  });

  it('tan: each TAN is accepted once, in any order', async () => {
    const d = await init({ type: 'tan', tans: '111111 222222 333333', pin: '9' });
    expect(await check({ serial: d.serial, pass: '9222222' })).toBe(true);
    expect(await check({ serial: d.serial, pass: '9222222' })).toBe(false);
    expect(await check({ serial: d.serial, pass: '9111111' })).toBe(true);
    expect(await check({ serial: d.serial, pass: '9333333' })).toBe(true);
    expect(await check({ serial: d.serial, pass: '9111111' })).toBe(false);
    // The unused TANs are kept sealed, never in clear.
    const row = await s.rt.store.db
      .selectFrom('token')
      .select('key_enc')
      .where('serial', '=', d.serial)
      .executeTakeFirstOrThrow();
    expect(row.key_enc).not.toContain('111111');
  });

  it('paper: enrollment prints the next values (papertoken_count); each authenticates once, in order', async () => {
    const d = await init({ type: 'paper', otpkey: KEY, pin: 'pp', papertoken_count: '5' });
    expect(d.serial).toMatch(/^PPR/);
    expect(d.otps).toEqual(Object.fromEntries([0, 1, 2, 3, 4].map((c) => [String(c), hotp(KEY, c)])));
    expect(await check({ serial: d.serial, pass: `pp${hotp(KEY, 1)}` })).toBe(true);
    // Printed values before the last one used are gone.
    expect(await check({ serial: d.serial, pass: `pp${hotp(KEY, 0)}` })).toBe(false);
    expect(await check({ serial: d.serial, pass: `pp${hotp(KEY, 2)}` })).toBe(true);
    expect(await check({ serial: d.serial, pass: `pp${hotp(KEY, 2)}` })).toBe(false);
    const refused = await s.call('POST', '/token/init', { type: 'paper', papertoken_count: '0' }, admin);
    expect(refused.json.result.error.code).toBe(905);
  });

  it('yubikey: Yubico OTPs after the PIN authenticate once each; PrependPin does not move the PIN', async () => {
    const aes = randomBytes(16);
    const publicId = 'vvccccdddeee';
    const d = await init({
      type: 'yubikey',
      otpkey: aes.toString('hex'),
      pin: 'yk',
      'yubikey.prefix': publicId,
    });
    expect(d.serial).toMatch(/^UBAM/);
    expect((await get(d.serial)).otplen).toBe(44);
    const otp1 = buildOtp(aes, publicId, { uid: '0102030405a6', usage: 3, session: 0 });
    expect(await check({ serial: d.serial, pass: `yk${otp1}` })).toBe(true);
    expect(await check({ serial: d.serial, pass: `yk${otp1}` })).toBe(false);
    // The private uid was learned: another key's uid is refused.
    const stranger = buildOtp(aes, publicId, { uid: 'ffffffffffff', usage: 9, session: 0 });
    expect(await check({ serial: d.serial, pass: `yk${stranger}` })).toBe(false);
    const otp2 = buildOtp(aes, publicId, { uid: '0102030405a6', usage: 3, session: 1 });
    const otp3 = buildOtp(aes, publicId, { uid: '0102030405a6', usage: 4, session: 0 });
    ok(await s.call('POST', '/system/setConfig', { PrependPin: 'False' }, admin));
    try {
      expect(await check({ serial: d.serial, pass: `yk${otp2}` })).toBe(true);
      expect(await check({ serial: d.serial, pass: `${otp3}yk` })).toBe(false);
    } finally {
      await removeConfig(s.rt, ['PrependPin']);
    }
    expect((await get(d.serial)).info['yubikey.tokenid']).toBe('0102030405a6');
  });
});
