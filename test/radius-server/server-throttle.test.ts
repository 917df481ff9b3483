// The brute-force throttling of RADIUS logins (issue 22): with a Calling-Station-Id that is an IP
// address (a VPN's end-user address) the failures count against that address, so one user's
// failures do not slow down the other users of the same NAS; a Calling-Station-Id that is no IP
// address (a MAC) and none count against the NAS's address; policies' and audit's client stays
// the NAS. With radius.throttle_by_calling_station_id off, the NAS's address always counts.
// Debian's radclient (freeradius-utils) sends the requests, from 127.0.0.1.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setRadiusClient } from '../../src/core/radiusclient/index.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { type RadiusServer, startRadiusServer } from '../../src/radius-server/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { radclient as radclientOf } from '../helpers/radclient.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';

const KEY = '3132333435363738393031323334353637383930';
const SECRET = 'nas-secret-throttle';
const NOW = new Date('2026-11-28T12:00:00Z');

/** radclient's answer line and Reply-Message (both streams), Message-Authenticator added. */
async function radclient(port: number, attributes: string[]): Promise<string> {
  const r = await radclientOf(port, [...attributes, 'Message-Authenticator = 0x00'], SECRET);
  return r.stdout + r.stderr;
}

describe.each(testDialects())('RADIUS logins and the throttling on %s', (dialect) => {
  describe.each([true, false])('radius.throttle_by_calling_station_id = %s', (byCallingStation) => {
    let s: TestServer;
    let op: Context;
    let radius: RadiusServer;
    const counters: Record<string, number> = { alice: 0, bob: 0 };

    useTokenServer(
      dialect,
      {
        realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)] },
        clock: () => NOW,
        config: {
          'throttle.enabled': 'true',
          // The first failure already makes the next attempt wait; the clock stands still.
          'throttle.free_failures': '0',
          'throttle.address_factor': '1',
          'radius.throttle_by_calling_station_id': String(byCallingStation),
        },
      },
      (t) => ({ s, op } = t),
    );
    beforeAll(async () => {
      await setRadiusClient(op, 'local', { address: '127.0.0.1', secret: SECRET });
      for (const user of ['alice', 'bob'])
        await initToken(op, { type: 'hotp', otpkey: KEY, user, realm: 'realm1' });
      radius = await startRadiusServer(s.rt, '127.0.0.1', 0);
      return () => radius.close();
    });

    /** A login of `user` with its next OTP (or a wrong one), Calling-Station-Id as given. */
    async function login(user: 'alice' | 'bob', right: boolean, callingStation?: string): Promise<string> {
      const otp = right ? hotp(KEY, counters[user]!) : '000000';
      const out = await radclient(radius.port, [
        `User-Name = "${user}"`,
        `User-Password = "${otp}"`,
        ...(callingStation ? [`Calling-Station-Id = "${callingStation}"`] : []),
      ]);
      if (/Received Access-Accept/.test(out)) counters[user]!++;
      return out;
    }
    const accepted = /Received Access-Accept/;
    const throttled = /Received Access-Reject[\s\S]*Reply-Message = "Authentication throttled/;
    const wrong = /Received Access-Reject[\s\S]*Reply-Message = "wrong otp value/;

    it(
      byCallingStation
        ? "counts failures against the end user's address: the NAS's other users log in"
        : "counts failures against the NAS's address: one user's failure throttles the NAS's others",
      async () => {
        expect(await login('alice', false, '192.0.2.1')).toMatch(wrong);
        expect(await login('alice', true, '192.0.2.1')).toMatch(throttled);
        if (byCallingStation) {
          // Another end user of the same NAS is not slowed down; from alice's address bob is.
          expect(await login('bob', true, '192.0.2.2')).toMatch(accepted);
          expect(await login('bob', true, '192.0.2.1')).toMatch(throttled);
          expect(await login('bob', true)).toMatch(accepted);
          // A Calling-Station-Id that is no IP address (a MAC) counts against the NAS.
          expect(await login('bob', false, 'AA-BB-CC-DD-EE-FF')).toMatch(wrong);
          expect(await login('bob', true)).toMatch(throttled);
          expect(await login('alice', true, '192.0.2.3')).toMatch(accepted);
        } else {
          expect(await login('bob', true, '192.0.2.2')).toMatch(throttled);
          expect(await login('bob', true)).toMatch(throttled);
        }
        // The audit's client is the NAS, whatever the throttling counted against.
        const clients = await s.rt.store.db
          .selectFrom('audit')
          .select('client')
          .distinct()
          .where('action', '=', 'RADIUS Access-Request')
          .execute();
        expect(clients.map((c) => c.client)).toEqual(['127.0.0.1']);
      },
    );
  });
});
