// The load generator of the RADIUS scenario (R): what autocannon is for the HTTP scenarios. `lanes`
// UDP sockets, each with exactly one Access-Request in flight (the next is sent when the answer to
// the last arrived), so that the number in flight is fixed like autocannon's connections. Requests
// and answers are built and checked with authsrv's own codec (src/radius-packet): PAP with the
// User-Password hidden, Message-Authenticator in every request, and every answer's Response
// Authenticator and Message-Authenticator verified. No retransmissions: an answer that does not
// come within `timeoutMs` is a timeout, which fails the run.
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import {
  ATTRIBUTE,
  CODE,
  encodeRequest,
  hidePassword,
  replyMessage,
  verifyResponse,
} from '../../src/radius-packet/index.ts';

/** One login: who, and the clear password (PIN + OTP). */
export interface RadiusLogin {
  userName: string;
  password: string;
}

export interface RadiusLoadOptions {
  host: string;
  port: number;
  secret: string;
  /** Requests in flight at any time: one per socket. */
  lanes: number;
  /** How long the load runs (warm-up and measured window together), ms. */
  durationMs: number;
  /** How long a request waits for its answer before it counts as a timeout, ms. */
  timeoutMs: number;
  /** The next login of the round robin. */
  next(): RadiusLogin;
  /** A request was sent (the unit starts); returns the start time the answer is measured from. */
  started(): number;
  /** The answer arrived: `problem` undefined when it is a verified Access-Accept. */
  answered(t0: number, problem: string | undefined): void;
}

export interface RadiusLoadCounts {
  /** Requests whose answer did not come within timeoutMs. */
  timeouts: number;
  /** Requests that could not be sent. */
  errors: number;
}

const CODE_NAMES: Record<number, string> = {
  [CODE.AccessAccept]: 'Access-Accept',
  [CODE.AccessReject]: 'Access-Reject',
  [CODE.AccessChallenge]: 'Access-Challenge',
};

/** What is wrong with an answer to a request with `authenticator`; undefined for a verified Accept. */
export function radiusAnswerProblem(raw: Buffer, authenticator: Buffer, secret: Buffer): string | undefined {
  const verified = verifyResponse(raw, authenticator, secret);
  if (!verified.ok) return verified.reason;
  const p = verified.packet;
  if (p.code === CODE.AccessAccept) return undefined;
  const message = replyMessage(p);
  return `${CODE_NAMES[p.code] ?? `code ${p.code}`}${message ? ` (${message})` : ''}`;
}

/** An encoded Access-Request for `login` with a fresh Request Authenticator. */
export function accessRequest(
  login: RadiusLogin,
  identifier: number,
  secret: Buffer,
): { raw: Buffer; authenticator: Buffer } {
  const authenticator = randomBytes(16);
  const raw = encodeRequest(
    {
      code: CODE.AccessRequest,
      identifier,
      authenticator,
      attributes: [
        { type: ATTRIBUTE.UserName, value: Buffer.from(login.userName, 'utf8') },
        {
          type: ATTRIBUTE.UserPassword,
          value: hidePassword(Buffer.from(login.password, 'utf8'), secret, authenticator),
        },
      ],
    },
    secret,
  );
  return { raw, authenticator };
}

async function openSocket(): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return socket;
}

/** One lane: request, wait for its answer (or the timeout), next request, until `until`. */
async function lane(o: RadiusLoadOptions, secret: Buffer, until: number, counts: RadiusLoadCounts) {
  const socket = await openSocket();
  let identifier = 0;
  try {
    while (performance.now() < until) {
      identifier = (identifier + 1) & 0xff;
      const id = identifier;
      const { raw, authenticator } = accessRequest(o.next(), id, secret);
      const t0 = o.started();
      const answer = await new Promise<Buffer | 'timeout' | 'error'>((resolve) => {
        const timer = setTimeout(() => finish('timeout'), o.timeoutMs);
        // A late answer to an earlier request (after its timeout) has another identifier.
        const onMessage = (m: Buffer) => {
          if (m.length >= 2 && m[1] === id) finish(m);
        };
        function finish(r: Buffer | 'timeout' | 'error') {
          clearTimeout(timer);
          socket.off('message', onMessage);
          resolve(r);
        }
        socket.on('message', onMessage);
        socket.send(raw, o.port, o.host, (err) => {
          if (err) finish('error');
        });
      });
      if (answer === 'timeout') counts.timeouts++;
      else if (answer === 'error') counts.errors++;
      else o.answered(t0, radiusAnswerProblem(answer, authenticator, secret));
    }
  } finally {
    socket.close();
  }
}

/** Runs the load for durationMs with `lanes` requests in flight; resolves when every lane is done. */
export async function runRadiusLoad(o: RadiusLoadOptions): Promise<RadiusLoadCounts> {
  const counts: RadiusLoadCounts = { timeouts: 0, errors: 0 };
  const secret = Buffer.from(o.secret, 'utf8');
  const until = performance.now() + o.durationMs;
  await Promise.all(Array.from({ length: o.lanes }, () => lane(o, secret, until, counts)));
  return counts;
}
