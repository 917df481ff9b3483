// The RADIUS client: one Access-Request to one server, over UDP, with retransmissions and a time
// limit, never blocking the event loop (a dead server delays only the request waiting for it).
// Every way it can fail (name not found, nothing listening, no answer, an answer with a wrong
// authenticator) ends in an answer of kind 'failed' with the reason, never in an exception.
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  ATTRIBUTE,
  AUTHENTICATOR_LENGTH,
  attributeOf,
  CODE,
  encodeRequest,
  hidePassword,
  type RadiusAttribute,
  type RadiusPacket,
  replyMessage,
  verifyResponse,
} from '../../radius-packet/index.ts';

/** Where a request goes and how long it may take. */
export interface RadiusTarget {
  server: string;
  port: number;
  secret: string;
  /** Seconds to wait for an answer to each try. */
  timeout: number;
  /** Retransmissions after the first try. */
  retries: number;
}

export interface AccessRequest {
  user: string;
  password: string;
  /** The State of an Access-Challenge this request answers. */
  state?: Buffer | undefined;
  /** NAS-Identifier to send; the server may require one. */
  nasIdentifier?: string | undefined;
}

export type RadiusAnswer =
  | { kind: 'accept'; message?: string | undefined }
  | { kind: 'reject'; message?: string | undefined }
  | { kind: 'challenge'; state: Buffer; message?: string | undefined }
  | { kind: 'failed'; reason: string };

async function addressOf(host: string): Promise<{ address: string; family: 4 | 6 }> {
  const family = isIP(host);
  if (family === 4 || family === 6) return { address: host, family };
  const found = await lookup(host);
  return { address: found.address, family: found.family === 6 ? 6 : 4 };
}

function requestAttributes(r: AccessRequest, hidden: Buffer): RadiusAttribute[] {
  const attributes: RadiusAttribute[] = [
    { type: ATTRIBUTE.UserName, value: Buffer.from(r.user, 'utf8') },
    { type: ATTRIBUTE.UserPassword, value: hidden },
  ];
  if (r.state) attributes.push({ type: ATTRIBUTE.State, value: r.state });
  if (r.nasIdentifier)
    attributes.push({ type: ATTRIBUTE.NasIdentifier, value: Buffer.from(r.nasIdentifier, 'utf8') });
  return attributes;
}

/** What an answer that passed the checks means. */
function answerOf(p: RadiusPacket): RadiusAnswer {
  const message = replyMessage(p);
  if (p.code === CODE.AccessAccept) return { kind: 'accept', message };
  if (p.code === CODE.AccessReject) return { kind: 'reject', message };
  if (p.code === CODE.AccessChallenge) {
    const state = attributeOf(p, ATTRIBUTE.State);
    if (!state) return { kind: 'failed', reason: 'the server sent an Access-Challenge without State' };
    return { kind: 'challenge', state, message };
  }
  return { kind: 'failed', reason: `the server answered with packet code ${p.code}` };
}

/** Sends an Access-Request and waits for its answer (see the header of this file). */
export async function sendAccessRequest(target: RadiusTarget, request: AccessRequest): Promise<RadiusAnswer> {
  let encoded: { raw: Buffer; authenticator: Buffer; identifier: number };
  let peer: { address: string; family: 4 | 6 };
  const secret = Buffer.from(target.secret, 'utf8');
  try {
    peer = await addressOf(target.server);
    const authenticator = randomBytes(AUTHENTICATOR_LENGTH);
    const identifier = randomBytes(1)[0]!;
    const hidden = hidePassword(Buffer.from(request.password, 'utf8'), secret, authenticator);
    const raw = encodeRequest(
      { code: CODE.AccessRequest, identifier, authenticator, attributes: requestAttributes(request, hidden) },
      secret,
    );
    encoded = { raw, authenticator, identifier };
  } catch (e) {
    return { kind: 'failed', reason: `cannot send to ${target.server}: ${(e as Error).message}` };
  }
  return exchange(target, peer, encoded, secret);
}

/** The UDP exchange: the same packet sent 1 + retries times, each try waiting `timeout` seconds. */
function exchange(
  target: RadiusTarget,
  peer: { address: string; family: 4 | 6 },
  req: { raw: Buffer; authenticator: Buffer; identifier: number },
  secret: Buffer,
): Promise<RadiusAnswer> {
  const where = `${target.server}:${target.port}`;
  const tries = 1 + Math.max(0, target.retries);
  return new Promise((resolve) => {
    const socket: Socket = createSocket(peer.family === 6 ? 'udp6' : 'udp4');
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    /** Why an answer was discarded: told when no valid answer comes. */
    let discarded: string | undefined;
    const finish = (answer: RadiusAnswer) => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      socket.removeAllListeners('message');
      // Errors after the end (a late ICMP) must not become unhandled 'error' events.
      socket.on('error', () => {});
      socket.close();
      resolve(answer);
    };
    const send = () => {
      if (sent >= tries) {
        const why = discarded
          ? `the answers of ${where} were discarded: ${discarded}`
          : `no answer from ${where} (a server stays silent to a client or secret it does not know)`;
        finish({
          kind: 'failed',
          reason: `${why}; ${tries} tries of ${target.timeout} s`,
        });
        return;
      }
      sent++;
      socket.send(req.raw, (err) => {
        if (err) finish({ kind: 'failed', reason: `cannot send to ${where}: ${err.message}` });
      });
      timer = setTimeout(send, target.timeout * 1000);
    };
    socket.on('error', (err: NodeJS.ErrnoException) => {
      const refused = err.code === 'ECONNREFUSED';
      finish({
        kind: 'failed',
        reason: refused ? `${where} refused the request (nothing listens there)` : `${where}: ${err.message}`,
      });
    });
    socket.on('message', (msg) => {
      if (msg.length < 2 || msg[1] !== req.identifier) return;
      const verified = verifyResponse(msg, req.authenticator, secret);
      if (!verified.ok) {
        discarded = verified.reason;
        return;
      }
      finish(answerOf(verified.packet));
    });
    // A connected socket hears only its peer, and learns of an ICMP port unreachable (ECONNREFUSED).
    socket.connect(target.port, peer.address, () => send());
  });
}
