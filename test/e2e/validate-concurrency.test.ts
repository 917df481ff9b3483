// An OTP value is accepted at most once, also when twenty requests carry it at the same moment
// (issue 5, "Safety"; DESIGN "Concurrency"): the compare-and-set on the counter, on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../src/core/context.ts';
import { initToken } from '../../src/core/token.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ok, writePasswdFile } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';

describe.each(testDialects())('concurrent /validate/check on %s', (dialect) => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ dialect });
    const admin = await s.adminToken();
    const file = await writePasswdFile(s.dataDir, 'users', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
    ]);
    ok(await s.call('POST', '/resolver/res1', { type: 'passwdresolver', Filename: file }, admin));
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'res1' }, admin));
    await initToken(withCaller(s.rt, localOperator()), {
      type: 'hotp',
      otpkey: KEY,
      pin: 'pin',
      user: 'alice',
      realm: 'realm1',
    });
  });
  afterAll(async () => s?.close());

  it('accepts one of twenty simultaneous requests carrying the same HOTP value', async () => {
    for (const counter of [0, 3]) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          s.call('POST', '/validate/check', { user: 'alice', pass: `pin${hotp(KEY, counter)}` }),
        ),
      );
      for (const a of answers) expect(a.json.result.status, a.text).toBe(true);
      const accepted = answers.filter((a) => a.json.result.authentication === 'ACCEPT');
      expect(accepted).toHaveLength(1);
      expect(answers.filter((a) => a.json.result.value === false)).toHaveLength(19);
      // The losers counted as failures; a reset keeps the token usable for the next round.
      await s.rt.store.db.updateTable('token').set({ failcount: 0 }).execute();
    }
  });
});
