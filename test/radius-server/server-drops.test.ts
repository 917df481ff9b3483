// What the RADIUS server counts and logs of the datagrams it drops or answers (issue 22): the
// counters in GET /metrics (authsrv_radius_requests_total{result}, authsrv_radius_dropped_total
// {reason}) parsed from the exposition, for answers from Debian's radclient and for malformed,
// oversized, wrong-secret and unknown-source datagrams; the drop log of an unknown source at most
// once a minute per address (a flood of them writes one line); and radius.max_inflight: with one
// request held in a pre validate_check WebHook that the test's listener does not answer yet, the
// next datagram is dropped as overloaded, and the held one is answered when released.
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../src/core/context.ts';
import { saveEventDefinition } from '../../src/core/event/index.ts';
import { setRadiusClient } from '../../src/core/radiusclient/index.ts';
import {
  ATTRIBUTE,
  CODE,
  encodeRequest,
  hidePassword,
  verifyResponse,
} from '../../src/radius-packet/index.ts';
import { type RadiusServer, startRadiusServer } from '../../src/radius-server/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type Exposition, parseExposition, sampleValue } from '../helpers/prometheus.ts';
import { radclient as radclientOf } from '../helpers/radclient.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const SECRET = 'nas-secret-drops';
const TOKEN = 'radius-metrics-token-0123456789abcdef';

/** radclient's output, both streams. */
async function radclient(port: number, attributes: string[], secret = SECRET): Promise<string> {
  const r = await radclientOf(port, attributes, secret);
  return r.stdout + r.stderr;
}

const pap = (user: string, password: string) => [
  `User-Name = "${user}"`,
  `User-Password = "${password}"`,
  'Message-Authenticator = 0x00',
];

/** A PAP Access-Request signed with SECRET; `password` raw gives a User-Password as is. */
function request(password: string | Buffer, identifier = 1): { raw: Buffer; authenticator: Buffer } {
  const authenticator = randomBytes(16);
  const secret = Buffer.from(SECRET);
  const hidden =
    typeof password === 'string' ? hidePassword(Buffer.from(password), secret, authenticator) : password;
  const raw = encodeRequest(
    {
      code: CODE.AccessRequest,
      identifier,
      authenticator,
      attributes: [
        { type: ATTRIBUTE.UserName, value: Buffer.from('alice') },
        { type: ATTRIBUTE.UserPassword, value: hidden },
      ],
    },
    secret,
  );
  return { raw, authenticator };
}

async function udpSocket(address: string): Promise<{ socket: Socket; answers: Buffer[] }> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  const answers: Buffer[] = [];
  socket.on('message', (m) => answers.push(m));
  return { socket, answers };
}

/** Resolves when `condition` holds (checked every 10 ms): the server handles datagrams on its own. */
function until(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const look = () => (condition() ? resolve() : setTimeout(look, 10));
    look();
  });
}

describe.each(testDialects())(
  'RADIUS drops and answers counted in /metrics, logged sparingly, on %s',
  (dialect) => {
    let home: string;
    let s: TestServer;
    let radius: RadiusServer;
    let now = Date.parse('2026-11-28T12:00:00Z');
    const lines: { msg: string; radius_drop?: string; from?: string; left_out?: number }[] = [];
    let local: Awaited<ReturnType<typeof udpSocket>>;
    let stranger: Awaited<ReturnType<typeof udpSocket>>;

    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'authsrv-radius-drops-'));
      const tokenFile = join(home, 'metrics-token');
      writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
      const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      s = await startTestServer({
        dialect,
        logger,
        clock: () => new Date(now),
        config: {
          'metrics.enabled': 'true',
          'metrics.token_file': tokenFile,
          'radius.max_inflight': '1',
        },
      });
      const op = withCaller(s.rt, localOperator());
      // 127.0.0.1 is the NAS; 127.0.0.3 (also the loopback) is no client.
      await setRadiusClient(op, 'local', { address: '127.0.0.1', secret: SECRET });
      radius = await startRadiusServer(s.rt, '127.0.0.1', 0);
      local = await udpSocket('127.0.0.1');
      stranger = await udpSocket('127.0.0.3');
    });
    afterAll(async () => {
      local?.socket.close();
      stranger?.socket.close();
      await radius?.close();
      await s?.close();
      rmSync(home, { recursive: true, force: true });
    });

    const scrape = async (): Promise<Exposition> => {
      const r = await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(200);
      return parseExposition(await r.text());
    };
    const dropped = (e: Exposition, reason: string) =>
      sampleValue(e, 'authsrv_radius_dropped_total', { reason });
    const answered = (e: Exposition, result: string) =>
      sampleValue(e, 'authsrv_radius_requests_total', { result });
    const dropLines = (from: string) => lines.filter((l) => l.radius_drop !== undefined && l.from === from);

    it('counts rejects, retransmissions and each kind of dropped datagram in /metrics', async () => {
      // Before the first datagram the RADIUS families are not there (a cluster's primary alone has them).
      const before = await scrape();
      expect(before.types.has('authsrv_radius_requests_total')).toBe(false);

      // A reject from radclient (no such user): answered, counted as reject.
      const rejected = await radclient(radius.port, pap('nobody', '1234000000'));
      expect(rejected).toMatch(/Received Access-Reject/);
      // A wrong shared secret: no answer, bad_authenticator.
      const wrong = await radclient(radius.port, pap('nobody', '1234000000'), 'not-the-secret');
      expect(wrong).not.toMatch(/Received/);

      // Sent one at a time (radius.max_inflight is 1 here), each awaited by its count.
      const c = radius.counters;
      const send = async (datagram: Buffer, from = local, counted: () => number) => {
        const was = counted();
        from.socket.send(datagram, radius.port, '127.0.0.1');
        await until(() => counted() > was);
      };
      await send(Buffer.from([1, 2, 3]), local, () => c.dropped.malformed);
      await send(request(randomBytes(144)).raw, local, () => c.dropped.oversized);
      await send(Buffer.concat([request('x').raw, Buffer.alloc(4100)]), local, () => c.dropped.oversized);
      await send(request('x').raw, stranger, () => c.dropped.unknown_client);
      // A retransmission: the same request again after its answer.
      const { raw, authenticator } = request('1234000000', 9);
      await send(raw, local, () => c.reject);
      await send(raw, local, () => c.retransmission);
      await until(() => local.answers.length === 2);
      expect(local.answers[0]!.equals(local.answers[1]!)).toBe(true);
      const v = verifyResponse(local.answers[1]!, authenticator, Buffer.from(SECRET));
      expect(v.ok && v.packet.code).toBe(CODE.AccessReject);

      const after = await scrape();
      expect(after.types.get('authsrv_radius_requests_total')).toBe('counter');
      expect(after.types.get('authsrv_radius_dropped_total')).toBe('counter');
      const delta = (f: (e: Exposition, k: string) => number, k: string) => f(after, k) - f(before, k);
      expect(delta(answered, 'reject')).toBe(2);
      expect(delta(answered, 'retransmission')).toBe(1);
      expect(delta(dropped, 'bad_authenticator')).toBe(1);
      expect(delta(dropped, 'malformed')).toBe(1);
      expect(delta(dropped, 'oversized')).toBe(2);
      expect(delta(dropped, 'unknown_client')).toBe(1);
      expect(delta(dropped, 'internal_error')).toBe(0);
      // The same numbers as the server's own counters.
      for (const reason of ['bad_authenticator', 'malformed', 'oversized', 'unknown_client'] as const)
        expect(dropped(after, reason)).toBe(c.dropped[reason]);
      expect(answered(after, 'reject')).toBe(c.reject);
      expect(local.answers).toHaveLength(2);
    });

    it('logs the drops of an unknown source at most once a minute, then with the count left out', async () => {
      const c = radius.counters;
      now += 120_000; // past the line of the test above
      const first = c.dropped.unknown_client;
      const logged = dropLines('127.0.0.3').length;
      for (let i = 1; i <= 50; i++) {
        stranger.socket.send(request('x', i).raw, radius.port, '127.0.0.1');
        await until(() => c.dropped.unknown_client === first + i);
      }
      expect(stranger.answers).toHaveLength(0);
      const flood = dropLines('127.0.0.3').slice(logged);
      expect(flood).toHaveLength(1);
      expect(flood[0]).toMatchObject({ radius_drop: 'unknown_client', left_out: 0 });
      expect(flood[0]!.msg).toMatch(
        /^RADIUS datagram from 127\.0\.0\.3 dropped: no RADIUS client has this address/,
      );

      // A minute later: one line again, saying how many were left out.
      now += 60_000;
      stranger.socket.send(request('x', 99).raw, radius.port, '127.0.0.1');
      await until(() => c.dropped.unknown_client === first + 51);
      const later = dropLines('127.0.0.3').slice(logged);
      expect(later).toHaveLength(2);
      expect(later[1]).toMatchObject({ left_out: 49 });
      expect(later[1]!.msg).toMatch(/\(49 more dropped since the last line\)/);
      expect(dropped(await scrape(), 'unknown_client')).toBe(c.dropped.unknown_client);
    });

    it('drops a datagram beyond radius.max_inflight as overloaded, and answers the one in flight', async () => {
      // A pre validate_check WebHook to a listener that holds each POST until the test releases it.
      const held: ServerResponse[] = [];
      const hook: Server = createServer((req, res) => {
        req.resume();
        held.push(res);
      });
      await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
      const op = withCaller(s.rt, localOperator());
      await saveEventDefinition(op, {
        name: 'hold',
        event: 'validate_check',
        handlermodule: 'WebHook',
        action: 'post_webhook',
        position: 'pre',
        conditions: {},
        options: {
          URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`,
          content_type: 'json',
          replace: 'False',
          data: '{}',
        },
      });
      try {
        const c = radius.counters;
        const overloaded = c.dropped.overloaded;
        const rejects = c.reject;
        const answersBefore = local.answers.length;
        const first = request('1234000000', 200);
        local.socket.send(first.raw, radius.port, '127.0.0.1');
        await until(() => held.length === 1);
        // The first is in flight: the next datagram, whatever it is, is dropped.
        local.socket.send(request('1234000000', 201).raw, radius.port, '127.0.0.1');
        await until(() => c.dropped.overloaded === overloaded + 1);
        expect(local.answers).toHaveLength(answersBefore);
        held[0]!.end('{}');
        await until(() => local.answers.length === answersBefore + 1);
        const v = verifyResponse(local.answers.at(-1)!, first.authenticator, Buffer.from(SECRET));
        expect(v.ok && v.packet.identifier).toBe(200);
        expect(c.reject).toBe(rejects + 1);
        expect(dropped(await scrape(), 'overloaded')).toBe(overloaded + 1);
        expect(dropLines('127.0.0.1').some((l) => l.radius_drop === 'overloaded')).toBe(true);
      } finally {
        for (const r of held) if (!r.writableEnded) r.end('{}');
        await s.rt.store.db.deleteFrom('eventhandler').execute();
        await new Promise<void>((resolve) => hook.close(() => resolve()));
      }
    });
  },
);
