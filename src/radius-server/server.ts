// The UDP listener of radius.listen: every datagram is read in a try of its own, so that nothing a
// peer sends can crash or block the server. A datagram from an address no RADIUS client covers,
// one that cannot be decoded or is too long, one whose Message-Authenticator is wrong or missing
// (where the client requires it), codes other than Access-Request and Status-Server, and any
// datagram beyond radius.max_inflight handled at once are dropped: counted (also in /metrics),
// logged at most once a minute per source address and reason (drop-log.ts), never answered (RFC
// 2865 section 3: silently discarded). Every answer carries Message-Authenticator and the request's
// Proxy-State attributes.
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import type { Runtime } from '../core/context.ts';
import { type RadiusClient, radiusClientFor } from '../core/radiusclient/index.ts';
import {
  ATTRIBUTE,
  attributeOf,
  CODE,
  encodeResponse,
  MAX_PACKET_LENGTH,
  MAX_PASSWORD_LENGTH,
  type RadiusPacket,
  verifyRequest,
} from '../radius-packet/index.ts';
import { accessRequest, type RadiusReply, replyMessageAttributes } from './access-request.ts';
import { type DropReason, type RadiusCounters, RadiusTally } from './counters.ts';
import { DropLog } from './drop-log.ts';
import { RetransmissionCache } from './retransmissions.ts';

export interface RadiusServer {
  /** Where it listens, as host:port ([host]:port for IPv6). */
  address: string;
  port: number;
  counters: RadiusCounters;
  close(): Promise<void>;
}

/** Starts the listener at `host:port` (port 0: a free one). */
export async function startRadiusServer(rt: Runtime, host: string, port: number): Promise<RadiusServer> {
  const socket = createSocket({ type: isIP(host) === 6 ? 'udp6' : 'udp4', reuseAddr: false });
  const now = () => rt.clock().getTime();
  const server: Serving = { rt, socket, tally: new RadiusTally(rt.metrics), drops: new DropLog(now) };
  const cache = new RetransmissionCache(now);
  const pending = new Set<Promise<void>>();
  const maxInflight = rt.config.radius.maxInflight;
  socket.on('message', (raw, peer) => {
    // Checked before any work: a flood queues nothing beyond the limit.
    if (pending.size >= maxInflight)
      return drop(server, 'overloaded', peer.address, `${maxInflight} datagrams are being handled`);
    const work = serve(server, cache, raw, peer.address, peer.port);
    pending.add(work);
    void work.finally(() => pending.delete(work));
  });
  socket.on('error', (e) => rt.log.error({ err: e }, 'RADIUS socket error'));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const bound = socket.address();
  return {
    address: bound.family === 'IPv6' ? `[${bound.address}]:${bound.port}` : `${bound.address}:${bound.port}`,
    port: bound.port,
    counters: server.tally.counters,
    async close() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await Promise.allSettled([...pending]);
      rt.log.info(
        { radius: server.tally.counters, drops_not_logged: server.drops.leftOutTotal },
        'RADIUS server stopped',
      );
    },
  };
}

/** What every datagram's handling shares. */
interface Serving {
  rt: Runtime;
  socket: Socket;
  tally: RadiusTally;
  drops: DropLog;
}

/** Counts a dropped datagram, and logs it unless its source and reason had a line this minute. */
function drop(server: Serving, reason: DropReason, address: string, why: string): void {
  server.tally.dropped(reason);
  const line = server.drops.next(address, reason);
  if (!line.log) return;
  const since = line.leftOut > 0 ? ` (${line.leftOut} more dropped since the last line)` : '';
  if (line.overflow)
    server.rt.log.warn(
      { radius_drop: reason, from: address, left_out: line.leftOut },
      `RADIUS datagram from ${address} dropped: ${why}; too many sources to log each, the drops of new sources are logged once a minute${since}`,
    );
  else
    server.rt.log.warn(
      { radius_drop: reason, from: address, left_out: line.leftOut },
      `RADIUS datagram from ${address} dropped: ${why}${since}; at most one such line per minute for this address`,
    );
}

async function serve(
  server: Serving,
  cache: RetransmissionCache,
  raw: Buffer,
  address: string,
  port: number,
): Promise<void> {
  const { rt, socket, tally } = server;
  try {
    const client = await radiusClientFor(rt, address);
    if (!client) return drop(server, 'unknown_client', address, 'no RADIUS client has this address');
    if (raw.length < 20) return drop(server, 'malformed', address, `${raw.length} octets`);
    if (raw.length > MAX_PACKET_LENGTH)
      return drop(server, 'oversized', address, `${raw.length} octets (at most ${MAX_PACKET_LENGTH})`);
    const code = raw[0];
    // Status-Server must always carry Message-Authenticator (RFC 5997 section 3).
    const verified = verifyRequest(
      raw,
      client.secret,
      client.requireMessageAuthenticator || code === CODE.StatusServer,
    );
    if (!verified.ok) {
      const missing = verified.reason.startsWith('the packet has no valid Message-Authenticator');
      const reason = /Message-Authenticator/.test(verified.reason)
        ? missing
          ? 'missing_message_authenticator'
          : 'bad_authenticator'
        : 'malformed';
      return drop(server, reason, address, `${verified.reason} (client ${client.name})`);
    }
    const request = verified.packet;
    if (request.code !== CODE.AccessRequest && request.code !== CODE.StatusServer)
      return drop(server, 'unsupported_code', address, `code ${request.code}`);
    // RFC 2865 section 5.2: User-Password is 16 to 128 octets, a multiple of 16.
    const hidden = attributeOf(request, ATTRIBUTE.UserPassword);
    if (hidden && hidden.length > MAX_PASSWORD_LENGTH)
      return drop(
        server,
        'oversized',
        address,
        `User-Password of ${hidden.length} octets (client ${client.name})`,
      );
    if (hidden && (hidden.length === 0 || hidden.length % 16 !== 0))
      return drop(
        server,
        'malformed',
        address,
        `User-Password of ${hidden.length} octets (client ${client.name})`,
      );
    const key = RetransmissionCache.keyOf(
      client.name,
      address,
      port,
      request.identifier,
      request.authenticator,
    );
    const earlier = cache.lookup(key);
    if (earlier) {
      tally.answered('retransmission');
      const answer = await earlier;
      if (answer) socket.send(answer, port, address);
      return;
    }
    const answer = answerTo(rt, client, address, request, tally);
    cache.remember(key, answer);
    const encoded = await answer;
    if (encoded) socket.send(encoded, port, address);
  } catch (e) {
    rt.log.error({ err: e, from: `${address}:${port}` }, 'RADIUS datagram could not be answered');
    tally.dropped('internal_error');
  }
}

/** The encoded answer, or undefined when the request is dropped after all. */
async function answerTo(
  rt: Runtime,
  client: RadiusClient,
  address: string,
  request: RadiusPacket,
  tally: RadiusTally,
): Promise<Buffer | undefined> {
  let reply: RadiusReply;
  if (request.code === CODE.StatusServer) {
    tally.answered('status');
    reply = { code: CODE.AccessAccept, attributes: replyMessageAttributes('authsrv is alive') };
  } else {
    try {
      reply = await accessRequest(rt, client, address, request);
    } catch (e) {
      rt.log.error({ err: e }, 'RADIUS Access-Request not answered');
      tally.dropped('internal_error');
      return undefined;
    }
    if (reply.code === CODE.AccessAccept) tally.answered('accept');
    else if (reply.code === CODE.AccessChallenge) tally.answered('challenge');
    else tally.answered('reject');
  }
  const proxyStates = request.attributes.filter((a) => a.type === ATTRIBUTE.ProxyState);
  return encodeResponse(
    { code: reply.code, identifier: request.identifier, attributes: [...reply.attributes, ...proxyStates] },
    request.authenticator,
    client.secret,
  );
}
