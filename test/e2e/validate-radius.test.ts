// The radius token and passthru to RADIUS over HTTP, against FreeRADIUS (test/helpers/freeradius.ts):
// the PIN forwarded or checked here (radius.local_checkpin), radius.user or the owner's login,
// an upstream Access-Challenge answered through its State with the transaction_id, the serial
// path, a dead server (a refusal, never an HTTP 500), enrollment errors; passthru=<identifier>
// for users without tokens, and passthru_assign giving such a user an unassigned HOTP token.
import { createSocket } from 'node:dgram';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import {
  freeUdpPort,
  RADIUS_ALICE_PASSWORD,
  RADIUS_CAROL_PASSWORD,
  RADIUS_CHAL_FIRST,
  RADIUS_CHAL_MESSAGE,
  RADIUS_CHAL_SECOND,
  RADIUS_CHAL_STATE,
  RADIUS_MULTI_STEPS,
  RADIUS_SECRET,
  useFreeRadius,
} from '../helpers/freeradius.ts';
import { RFC4226_KEY_HEX } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { initOk, tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const fr = useFreeRadius();

describe.each(testDialects())('radius tokens and passthru on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: {
        r1: [
          pwUser('alice', 1001),
          pwUser('chal', 1002),
          pwUser('carol', 1003),
          pwUser('bob', 1004),
          pwUser('multi', 1005),
        ],
      },
      reset: ['policies', 'tokens'],
    },
    (t) => ({ s, op, admin } = t),
  );
  beforeAll(async () => {
    ok(
      await s.call(
        'POST',
        '/radiusserver/fr',
        { server: '127.0.0.1', port: String(fr.port), secret: RADIUS_SECRET, timeout: '2', retries: '1' },
        admin,
      ),
    );
    // Nothing listens on this port: every request is refused at once.
    ok(
      await s.call(
        'POST',
        '/radiusserver/dead',
        { server: '127.0.0.1', port: String(await freeUdpPort()), secret: 's', timeout: '1', retries: '0' },
        admin,
      ),
    );
  });

  const check = (params: Record<string, string>) =>
    s.call('POST', '/validate/check', { realm: 'r1', ...params });
  const radiusToken = (serial: string, user: string, extra: Record<string, string> = {}) =>
    initOk(s, { type: 'radius', serial, user, realm: 'r1', 'radius.identifier': 'fr', ...extra }, admin);

  it('forwards the whole pass when the PIN is not checked here: accept, reject with the fail counter', async () => {
    await radiusToken('RAD1', 'alice');
    const info = ok(await s.call('GET', '/token/', { serial: 'RAD1' }, admin)).tokens[0].info;
    expect(info).toMatchObject({
      'radius.identifier': 'fr',
      'radius.local_checkpin': '0',
      tokenkind: 'virtual',
    });
    let r = await check({ user: 'alice', pass: RADIUS_ALICE_PASSWORD });
    expect(r.json.result).toMatchObject({ status: true, value: true, authentication: 'ACCEPT' });
    expect(r.json.detail).toMatchObject({ message: 'matching 1 tokens', serial: 'RAD1', type: 'radius' });
    r = await check({ user: 'alice', pass: 'wrong' });
    expect(r.json.result).toMatchObject({ status: true, value: false, authentication: 'REJECT' });
    expect((await tokenRow(s, 'RAD1')).failcount).toBe(1);
    // The serial path sends the owner's login too; a success resets the fail counter.
    r = await s.call('POST', '/validate/check', { serial: 'RAD1', pass: RADIUS_ALICE_PASSWORD });
    expect(r.json.result.value).toBe(true);
    expect((await tokenRow(s, 'RAD1')).failcount).toBe(0);
  });

  it('checks the PIN here with radius.local_checkpin and forwards the OTP part as radius.user', async () => {
    await radiusToken('RAD2', 'bob', {
      pin: 'bobpin',
      otplen: String(RADIUS_ALICE_PASSWORD.length),
      'radius.local_checkpin': '1',
      'radius.user': 'alice',
    });
    expect((await check({ user: 'bob', pass: `bobpin${RADIUS_ALICE_PASSWORD}` })).json.result.value).toBe(
      true,
    );
    let r = await check({ user: 'bob', pass: `wrong!${RADIUS_ALICE_PASSWORD}` });
    expect(r.json).toMatchObject({ result: { value: false }, detail: { message: 'wrong otp pin' } });
    r = await check({ user: 'bob', pass: `bobpin${'x'.repeat(RADIUS_ALICE_PASSWORD.length)}` });
    expect(r.json).toMatchObject({ result: { value: false }, detail: { message: 'wrong otp value' } });
  });

  it("passes an upstream Access-Challenge on as a challenge and answers it with the server's State", async () => {
    await radiusToken('RAD3', 'chal');
    const first = await check({ user: 'chal', pass: RADIUS_CHAL_FIRST });
    expect(first.json.result).toMatchObject({ status: true, value: false, authentication: 'CHALLENGE' });
    const detail = first.json.detail;
    expect(detail).toMatchObject({ message: RADIUS_CHAL_MESSAGE, serial: 'RAD3', type: 'radius' });
    expect(detail.multi_challenge).toEqual([
      expect.objectContaining({
        serial: 'RAD3',
        message: RADIUS_CHAL_MESSAGE,
        transaction_id: detail.transaction_id,
      }),
    ]);
    const stored = await s.rt.store.db
      .selectFrom('challenge')
      .select('data')
      .where('transaction_id', '=', detail.transaction_id)
      .execute();
    expect(stored).toEqual([{ data: RADIUS_CHAL_STATE }]);
    // A wrong answer fails (FreeRADIUS rejects it), the right one is accepted, once.
    let r = await check({ user: 'chal', pass: 'wrong', transaction_id: detail.transaction_id });
    expect(r.json.result.value).toBe(false);
    r = await check({ user: 'chal', pass: RADIUS_CHAL_SECOND, transaction_id: detail.transaction_id });
    expect(r.json.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
    expect(r.json.detail.message).toBe('Found matching challenge');
    r = await check({ user: 'chal', pass: RADIUS_CHAL_SECOND, transaction_id: detail.transaction_id });
    expect(r.json.result.value).toBe(false);
  });

  it('continues the transaction when the server answers a challenge with another challenge', async () => {
    await radiusToken('RAD6', 'multi');
    const first = await check({ user: 'multi', pass: RADIUS_MULTI_STEPS[0] });
    const tid = first.json.detail.transaction_id;
    expect(first.json.detail.message).toBe('Step 2');
    const second = await check({ user: 'multi', pass: RADIUS_MULTI_STEPS[1], transaction_id: tid });
    expect(second.json.result).toMatchObject({ value: false, authentication: 'CHALLENGE' });
    expect(second.json.detail).toMatchObject({ message: 'Step 3', transaction_id: tid });
    const third = await check({ user: 'multi', pass: RADIUS_MULTI_STEPS[2], transaction_id: tid });
    expect(third.json.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
  });

  it('with radius.local_checkpin, the PIN alone starts a challenge under challenge_response; its answer is forwarded', async () => {
    await setPolicy(op, 'cr', { scope: 'authentication', action: 'challenge_response=radius', realm: 'r1' });
    await radiusToken('RAD7', 'alice', {
      pin: 'alicepin',
      otplen: String(RADIUS_ALICE_PASSWORD.length),
      'radius.local_checkpin': '1',
    });
    const first = await check({ user: 'alice', pass: 'alicepin' });
    expect(first.json.result.authentication).toBe('CHALLENGE');
    expect(first.json.detail.message).toBe('Enter your RADIUS tokencode:');
    const r = await check({
      user: 'alice',
      pass: RADIUS_ALICE_PASSWORD,
      transaction_id: first.json.detail.transaction_id,
    });
    expect(r.json.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
  });

  it('refuses, without an error, when the RADIUS server cannot be reached', async () => {
    await radiusToken('RAD4', 'alice', { 'radius.identifier': 'dead' });
    const r = await check({ user: 'alice', pass: RADIUS_ALICE_PASSWORD });
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({ status: true, value: false });
  });

  it('a RADIUS server that never answers delays only the logins waiting for it', async () => {
    // A peer that receives Access-Requests and never answers.
    const silent = createSocket('udp4');
    let received = 0;
    const arrived = new Promise<void>((resolve) =>
      silent.on('message', () => {
        received++;
        resolve();
      }),
    );
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const port = String(silent.address().port);
      ok(
        await s.call(
          'POST',
          '/radiusserver/silent',
          { server: '127.0.0.1', port, secret: 's', timeout: '3', retries: '0' },
          admin,
        ),
      );
      await radiusToken('RAD8', 'alice', { 'radius.identifier': 'silent' });
      await initOk(s, { type: 'spass', serial: 'SP1', user: 'bob', realm: 'r1', pin: 'bobpass' }, admin);
      let waitingDone = false;
      const waiting = check({ user: 'alice', pass: 'x' }).then((r) => {
        waitingDone = true;
        return r;
      });
      await arrived;
      // While alice's login waits for the silent server, bob's is answered.
      expect((await check({ user: 'bob', pass: 'bobpass' })).json.result.value).toBe(true);
      expect(waitingDone).toBe(false);
      expect((await waiting).json.result).toMatchObject({ status: true, value: false });
      expect(received).toBe(1);
    } finally {
      silent.close();
      ok(await s.call('DELETE', '/radiusserver/silent', {}, admin));
    }
  });

  it('refuses an enrollment without radius.identifier, or with the legacy server settings', async () => {
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'radius', user: 'alice', realm: 'r1' }, admin),
      905,
      /radius\.identifier/,
    );
    expectServiceError(
      await s.call(
        'POST',
        '/token/init',
        { type: 'radius', 'radius.server': '127.0.0.1', 'radius.secret': 's' },
        admin,
      ),
      905,
      /not supported/,
    );
    expect(await s.rt.store.db.selectFrom('token').select('serial').execute()).toEqual([]);
  });

  it('passthru=<RADIUS identifier> accepts a user without tokens whom the server accepts', async () => {
    await setPolicy(op, 'pt', { scope: 'authentication', action: 'passthru=fr', realm: 'r1' });
    let r = await check({ user: 'alice', pass: RADIUS_ALICE_PASSWORD });
    expect(r.json.result.value).toBe(true);
    expect(r.json.detail.message).toBe("against RADIUS server fr due to 'pt'");
    r = await check({ user: 'alice', pass: 'wrong' });
    expect(r.json).toMatchObject({
      result: { value: false },
      detail: { message: 'The user has no tokens assigned' },
    });
    // A user with a token is checked by the token, not passed through.
    await radiusToken('RAD5', 'alice', { 'radius.identifier': 'dead' });
    expect((await check({ user: 'alice', pass: RADIUS_ALICE_PASSWORD })).json.result.value).toBe(false);
  });

  it('passthru_assign gives the user the unassigned token of the realm whose OTP the pass ends with', async () => {
    await setPolicy(op, 'pt', {
      scope: 'authentication',
      action: 'passthru=fr, passthru_assign=pin:6',
      realm: 'r1',
    });
    await initOk(s, { type: 'hotp', serial: 'HOTP1', otpkey: RFC4226_KEY_HEX }, admin);
    ok(await s.call('POST', '/token/realm/HOTP1', { realms: 'r1' }, admin));
    const r = await check({ user: 'carol', pass: RADIUS_CAROL_PASSWORD });
    expect(r.json.result.value).toBe(true);
    expect(r.json.detail.message).toBe("auto-assigned HOTP1,against RADIUS server fr due to 'pt'");
    const owner = ok(await s.call('GET', '/token/', { serial: 'HOTP1' }, admin)).tokens[0];
    expect(owner).toMatchObject({ username: 'carol', count: 2 });
    // The PIN part is the token's PIN now: carol logs in with it and the next value.
    const next = await check({ user: 'carol', pass: 'carolpin359152' });
    expect(next.json.result.value).toBe(true);
    expect(next.json.detail.serial).toBe('HOTP1');
  });
});
