// authsrv's own RADIUS server against Debian's radclient (freeradius-utils, unmodified): PAP
// accept and reject through the validate service (audit rows, user@realm), a challenge and its
// answer with State, an unknown client and a wrong secret dropped (no answer), a request without
// Message-Authenticator refused unless the client allows it, Status-Server, malformed datagrams
// dropped and counted, and a retransmission answered from the cache without a second OTP check.
// On SQLite; the full path once more on PostgreSQL.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { eventCounterValues, saveEventDefinition } from '../../src/core/event/index.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { setRadiusClient } from '../../src/core/radiusclient/index.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import {
  ATTRIBUTE,
  CODE,
  encodePacket,
  encodeRequest,
  hidePassword,
  verifyResponse,
} from '../../src/radius-packet/index.ts';
import { type RadiusServer, startRadiusServer } from '../../src/radius-server/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { RADIUS_SECRET, startFreeRadius } from '../helpers/freeradius.ts';
import { hotp } from '../helpers/otp.ts';
import { radclient as radclientOf } from '../helpers/radclient.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';

const KEY = '3132333435363738393031323334353637383930';
const SECRET = 'nas-secret-radclient';

const radclient = (port: number, attributes: string[], secret = SECRET, code = 'auth') =>
  radclientOf(port, attributes, secret, code);

const pap = (user: string, password: string, extra: string[] = []) => [
  `User-Name = "${user}"`,
  `User-Password = "${password}"`,
  'Message-Authenticator = 0x00',
  ...extra,
];

function describeOn(dialect: (typeof DIALECTS)[number], full: boolean) {
  describe(`the RADIUS server on ${dialect}`, () => {
    let s: TestServer;
    let op: Context;
    let radius: RadiusServer;

    useTokenServer(
      dialect,
      { realms: { realm1: [pwUser('alice', 1001, 'Alice Example')], realm2: [pwUser('bob', 1002)] } },
      (t) => ({ s, op } = t),
    );
    beforeAll(async () => {
      await setRadiusClient(op, 'local', { address: '127.0.0.0/8', secret: SECRET });
      // A client elsewhere: its secret is not the one of 127.0.0.1.
      await setRadiusClient(op, 'other', { address: '2001:db8::/32', secret: 'other-secret' });
      await initToken(op, { type: 'hotp', otpkey: KEY, pin: '1234', user: 'alice', realm: 'realm1' });
      await initToken(op, { type: 'hotp', otpkey: KEY, pin: '5678', user: 'bob', realm: 'realm2' });
      radius = await startRadiusServer(s.rt, '127.0.0.1', 0);
    });
    afterAll(async () => radius?.close());

    const lastAudit = () =>
      s.rt.store.db
        .selectFrom('audit')
        .select(['action', 'success', 'authentication', 'user', 'realm', 'serial', 'client', 'info'])
        .where('action', '=', 'RADIUS Access-Request')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();

    it('accepts the right PIN and OTP and rejects a wrong one, with audit rows; user@realm as /validate/check', async () => {
      const accepted = await radclient(radius.port, pap('alice', `1234${hotp(KEY, 0)}`));
      expect(accepted.stdout, accepted.stderr).toMatch(/Received Access-Accept/);
      expect(accepted.code).toBe(0);
      expect(await lastAudit()).toMatchObject({
        success: 1,
        authentication: 'ACCEPT',
        user: 'alice',
        realm: 'realm1',
        client: '127.0.0.1',
      });
      // The same OTP again: used.
      const replay = await radclient(radius.port, pap('alice', `1234${hotp(KEY, 0)}`));
      expect(replay.stdout).toMatch(/Received Access-Reject/);
      expect(replay.stdout).toMatch(/Reply-Message = "wrong otp value/);
      expect(await lastAudit()).toMatchObject({ success: 0, authentication: 'REJECT', user: 'alice' });
      // bob lives in realm2, not the default realm: user@realm as /validate/check splits it.
      const bob = await radclient(radius.port, pap('bob@realm2', `5678${hotp(KEY, 0)}`));
      expect(bob.stdout, bob.stderr).toMatch(/Received Access-Accept/);
      expect(await lastAudit()).toMatchObject({ success: 1, user: 'bob', realm: 'realm2' });
    });

    if (!full) return;

    it('answers a PIN with an Access-Challenge carrying State and the challenge text; the answer with that State is accepted', async () => {
      await setPolicy(op, 'cr', { scope: 'authentication', action: 'challenge_response=hotp' });
      try {
        const challenged = await radclient(radius.port, pap('alice', '1234'));
        expect(challenged.stdout, challenged.stderr).toMatch(/Received Access-Challenge/);
        expect(challenged.stdout).toMatch(/Reply-Message = "please enter otp: "/);
        const state = /State = (0x[0-9a-f]+)/.exec(challenged.stdout)?.[1];
        expect(state).toBeDefined();
        const tid = (
          await s.rt.store.db.selectFrom('challenge').select('transaction_id').executeTakeFirstOrThrow()
        ).transaction_id;
        expect(Buffer.from(state!.slice(2), 'hex').toString()).toBe(tid);
        expect(await lastAudit()).toMatchObject({ success: 0, authentication: 'CHALLENGE' });
        const answered = await radclient(radius.port, pap('alice', hotp(KEY, 1), [`State = ${state}`]));
        expect(answered.stdout, answered.stderr).toMatch(/Received Access-Accept/);
        expect(await lastAudit()).toMatchObject({ success: 1, authentication: 'ACCEPT' });
      } finally {
        await s.rt.store.db.deleteFrom('policy').execute();
      }
    });

    it('drops an unknown client, a wrong secret and a request without Message-Authenticator: no answer', async () => {
      const before = { ...radius.counters.dropped };
      // A wrong secret fails the Message-Authenticator; an address that no client covers is
      // dropped before any check.
      const wrong = await radclient(radius.port, pap('alice', `1234${hotp(KEY, 2)}`), 'not-the-secret');
      expect(wrong.code).not.toBe(0);
      expect(wrong.stdout + wrong.stderr).toMatch(/No reply from server/);
      const bare = await radclient(radius.port, [
        `User-Name = "alice"`,
        `User-Password = "1234${hotp(KEY, 2)}"`,
      ]);
      expect(bare.stdout + bare.stderr).toMatch(/No reply from server/);
      expect(radius.counters.dropped.bad_authenticator).toBe(before.bad_authenticator + 1);
      expect(radius.counters.dropped.missing_message_authenticator).toBe(
        before.missing_message_authenticator + 1,
      );
      await s.rt.store.db.deleteFrom('radiusclient').where('name', '=', 'local').execute();
      try {
        const unknown = await radclient(radius.port, pap('alice', `1234${hotp(KEY, 2)}`));
        expect(unknown.stdout + unknown.stderr).toMatch(/No reply from server/);
        expect(radius.counters.dropped.unknown_client).toBe(before.unknown_client + 1);
      } finally {
        await setRadiusClient(op, 'local', { address: '127.0.0.0/8', secret: SECRET });
      }
      // Still an OTP unused by any dropped request.
      const accepted = await radclient(radius.port, pap('alice', `1234${hotp(KEY, 2)}`));
      expect(accepted.stdout, accepted.stderr).toMatch(/Received Access-Accept/);
    });

    it('takes a request without Message-Authenticator from a client that allows it, and answers Status-Server', async () => {
      await setRadiusClient(op, 'local', { secret: SECRET, require_message_authenticator: 'false' });
      try {
        const bare = await radclient(radius.port, [
          `User-Name = "alice"`,
          `User-Password = "1234${hotp(KEY, 3)}"`,
        ]);
        expect(bare.stdout, bare.stderr).toMatch(/Received Access-Accept/);
        // The answer carries Message-Authenticator all the same.
        expect(bare.stdout).toMatch(/Message-Authenticator = 0x[0-9a-f]{32}/);
      } finally {
        await setRadiusClient(op, 'local', { secret: SECRET, require_message_authenticator: 'true' });
      }
      const status = await radclient(radius.port, ['Message-Authenticator = 0x00'], SECRET, 'status');
      expect(status.stdout, status.stderr).toMatch(/Received Access-Accept/);
    });

    it('answers a retransmission from the cache, without verifying the OTP again; drops malformed datagrams', async () => {
      const socket = createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
      const answers: Buffer[] = [];
      const arrived = (n: number) =>
        new Promise<void>((resolve) => {
          const look = () => (answers.length >= n ? resolve() : setTimeout(look, 10));
          look();
        });
      socket.on('message', (m) => answers.push(m));
      try {
        const authenticator = randomBytes(16);
        const request = encodeRequest(
          {
            code: CODE.AccessRequest,
            identifier: 42,
            authenticator,
            attributes: [
              { type: ATTRIBUTE.UserName, value: Buffer.from('alice') },
              {
                type: ATTRIBUTE.UserPassword,
                value: hidePassword(Buffer.from(`1234${hotp(KEY, 4)}`), Buffer.from(SECRET), authenticator),
              },
            ],
          },
          Buffer.from(SECRET),
        );
        const rowsBefore = await s.rt.store.db.selectFrom('audit').select('id').execute();
        const retransmissions = radius.counters.retransmission;
        // Two copies at once (the second while the first is being checked) and one later.
        socket.send(request, radius.port, '127.0.0.1');
        socket.send(request, radius.port, '127.0.0.1');
        await arrived(2);
        socket.send(request, radius.port, '127.0.0.1');
        await arrived(3);
        for (const a of answers) {
          const v = verifyResponse(a, authenticator, Buffer.from(SECRET));
          expect(v.ok && v.packet.code).toBe(CODE.AccessAccept);
          expect(a.equals(answers[0]!)).toBe(true);
        }
        expect(radius.counters.retransmission).toBe(retransmissions + 2);
        const rowsAfter = await s.rt.store.db.selectFrom('audit').select('id').execute();
        expect(rowsAfter.length - rowsBefore.length).toBe(1);

        // Malformed: too short, a length past the datagram, an attribute running over the end.
        const malformed = radius.counters.dropped.malformed;
        const oversizedBefore = radius.counters.dropped.oversized;
        const broken = encodePacket({
          code: CODE.AccessRequest,
          identifier: 1,
          authenticator,
          attributes: [],
        });
        broken.writeUInt16BE(200, 2);
        const overrun = Buffer.concat([
          encodePacket({ code: CODE.AccessRequest, identifier: 2, authenticator, attributes: [] }),
          Buffer.from([1, 50, 0x61]),
        ]);
        overrun.writeUInt16BE(overrun.length, 2);
        // An oversized User-Password (144 octets), signed with the right secret.
        const oversized = encodeRequest(
          {
            code: CODE.AccessRequest,
            identifier: 3,
            authenticator,
            attributes: [
              { type: ATTRIBUTE.UserName, value: Buffer.from('alice') },
              { type: ATTRIBUTE.UserPassword, value: randomBytes(144) },
            ],
          },
          Buffer.from(SECRET),
        );
        for (const d of [Buffer.from([1, 2, 3]), broken, overrun, oversized])
          socket.send(d, radius.port, '127.0.0.1');
        // The server still answers afterwards, and counted each drop.
        const status = await radclient(radius.port, ['Message-Authenticator = 0x00'], SECRET, 'status');
        expect(status.stdout, status.stderr).toMatch(/Received Access-Accept/);
        // Each datagram is handled on its own: wait until all four are counted (the long password as oversized).
        await new Promise<void>((resolve) => {
          const look = () =>
            radius.counters.dropped.malformed >= malformed + 3 &&
            radius.counters.dropped.oversized >= oversizedBefore + 1
              ? resolve()
              : setTimeout(look, 10);
          look();
        });
        expect(radius.counters.dropped.malformed).toBe(malformed + 3);
        expect(radius.counters.dropped.oversized).toBe(oversizedBefore + 1);
        expect(radius.counters.dropped.internal_error).toBe(0);
        expect(answers).toHaveLength(3);
      } finally {
        socket.close();
      }
    });

    it('adds the reply attributes of the radius_reply policy of the realm to an Access-Accept, from the user attributes', async () => {
      await setPolicy(op, 'vpn', {
        scope: 'authorization',
        realm: 'realm1',
        action:
          'radius_reply=Filter-Id=vpn-{realm}; Session-Timeout=28800; Class=user-{username}; Reply-Message=Welcome {givenname}; Filter-Id={no_such_attribute}',
      });
      try {
        const alice = await radclient(radius.port, pap('alice', `1234${hotp(KEY, 7)}`));
        expect(alice.stdout, alice.stderr).toMatch(/Received Access-Accept/);
        expect(alice.stdout).toMatch(/Filter-Id = "vpn-realm1"/);
        expect(alice.stdout).toMatch(/Session-Timeout = 28800/);
        expect(alice.stdout).toMatch(/Class = 0x757365722d616c696365/); // "user-alice"
        expect(alice.stdout).toMatch(/Reply-Message = "Welcome Alice"/);
        expect(alice.stdout.match(/Filter-Id/g)).toHaveLength(1);
        // bob's realm has no such policy.
        const bob = await radclient(radius.port, pap('bob@realm2', `5678${hotp(KEY, 1)}`));
        expect(bob.stdout, bob.stderr).toMatch(/Received Access-Accept/);
        expect(bob.stdout).not.toMatch(/Filter-Id|Session-Timeout|Class/);
      } finally {
        await s.rt.store.db.deleteFrom('policy').execute();
      }
    });

    it('listens on IPv6 too: a client by IPv6 address, and IPv4 clients on a dual-stack socket', async () => {
      await setRadiusClient(op, 'v6', { address: '::1/128', secret: 'v6-secret' });
      const v6 = await startRadiusServer(s.rt, '::', 0);
      const statusFrom = async (type: 'udp4' | 'udp6', to: string, secret: string) => {
        const socket = createSocket(type);
        await new Promise<void>((resolve) => socket.bind(0, to, resolve));
        try {
          const authenticator = randomBytes(16);
          const answer = new Promise<Buffer>((resolve) => socket.once('message', resolve));
          socket.send(
            encodeRequest(
              { code: CODE.StatusServer, identifier: 7, authenticator, attributes: [] },
              Buffer.from(secret),
            ),
            v6.port,
            to,
          );
          const v = verifyResponse(await answer, authenticator, Buffer.from(secret));
          return v.ok ? v.packet.code : v.reason;
        } finally {
          socket.close();
        }
      };
      try {
        expect(v6.address).toBe(`[::]:${v6.port}`);
        expect(await statusFrom('udp6', '::1', 'v6-secret')).toBe(CODE.AccessAccept);
        // 127.0.0.1 arrives as ::ffff:127.0.0.1 and is the IPv4 client 'local'.
        expect(await statusFrom('udp4', '127.0.0.1', SECRET)).toBe(CODE.AccessAccept);
      } finally {
        await v6.close();
        await s.rt.store.db.deleteFrom('radiusclient').where('name', '=', 'v6').execute();
      }
    });

    it('fires validate_check pre and post like /validate/check: event handlers see RADIUS logins', async () => {
      const define = (name: string, position: string, conditions: Record<string, string> = {}) =>
        saveEventDefinition(op, {
          name,
          event: 'validate_check',
          handlermodule: 'Counter',
          action: 'increase_counter',
          position,
          conditions,
          options: { counter_name: name },
        });
      await define('radius_pre', 'pre');
      await define('radius_accepted', 'post', { result_authentication: 'ACCEPT' });
      try {
        const accepted = await radclient(radius.port, pap('alice', `1234${hotp(KEY, 10)}`));
        expect(accepted.stdout, accepted.stderr).toMatch(/Received Access-Accept/);
        const rejected = await radclient(radius.port, pap('alice', '1234000000'));
        expect(rejected.stdout, rejected.stderr).toMatch(/Received Access-Reject/);
        expect(await eventCounterValues(s.rt)).toEqual({ radius_pre: 2, radius_accepted: 1 });
      } finally {
        await s.rt.store.db.deleteFrom('eventhandler').execute();
        await s.rt.store.db.deleteFrom('eventcounter').execute();
      }
    });

    it('answers through FreeRADIUS as an enterprise front: proxy.conf with authsrv as home server', async () => {
      const proxy = await startFreeRadius({ port: radius.port, secret: SECRET });
      await setPolicy(op, 'cr', { scope: 'authentication', action: 'challenge_response=hotp' });
      try {
        const accepted = await radclient(proxy.port, pap('alice', `1234${hotp(KEY, 11)}`), RADIUS_SECRET);
        expect(accepted.stdout, proxy.output()).toMatch(/Received Access-Accept/);
        expect(await lastAudit()).toMatchObject({
          success: 1,
          authentication: 'ACCEPT',
          client: '127.0.0.1',
        });
        const rejected = await radclient(proxy.port, pap('alice', `1234${hotp(KEY, 11)}`), RADIUS_SECRET);
        expect(rejected.stdout, proxy.output()).toMatch(/Received Access-Reject/);
        const challenged = await radclient(proxy.port, pap('alice', '1234'), RADIUS_SECRET);
        expect(challenged.stdout, proxy.output()).toMatch(/Received Access-Challenge/);
        const state = /State = (0x[0-9a-f]+)/.exec(challenged.stdout)?.[1];
        expect(state).toBeDefined();
        const answered = await radclient(
          proxy.port,
          pap('alice', hotp(KEY, 12), [`State = ${state}`]),
          RADIUS_SECRET,
        );
        expect(answered.stdout, proxy.output()).toMatch(/Received Access-Accept/);
      } finally {
        await s.rt.store.db.deleteFrom('policy').execute();
        await proxy.stop();
      }
    });
  });
}

const DIALECTS = testDialects();
describeOn('sqlite', true);
if (DIALECTS.includes('postgres')) describeOn('postgres', false);
