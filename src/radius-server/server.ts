// The UDP listener of radius.listen: every datagram is read in a try of its own, so that nothing a
// peer sends can crash or block the server. A datagram from an address no RADIUS client covers,
// one that cannot be decoded, one whose Message-Authenticator is wrong or missing (where the
// client requires it) and codes other than Access-Request and Status-Server are dropped: counted,
// logged, never answered (RFC 2865 section 3: silently discarded). Every answer carries
// Message-Authenticator and the request's Proxy-State attributes.
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import type { Runtime } from '../core/context.ts';
import { type RadiusClient, radiusClientFor } from '../core/radiusclient/index.ts';
import {
  ATTRIBUTE,
  attributeOf,
  CODE,
  encodeResponse,
  MAX_PASSWORD_LENGTH,
  type RadiusPacket,
  verifyRequest,
} from '../radius-packet/index.ts';
import { accessRequest, type RadiusReply, replyMessageAttributes } from './access-request.ts';
import { type DropReason, newCounters, type RadiusCounters } from './counters.ts';
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
  const counters = newCounters();
  const cache = new RetransmissionCache(() => rt.clock().getTime());
  const pending = new Set<Promise<void>>();
  socket.on('message', (raw, peer) => {
    const work = serve(rt, socket, counters, cache, raw, peer.address, peer.port);
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
    counters,
    async close() {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await Promise.allSettled([...pending]);
      rt.log.info({ radius: counters }, 'RADIUS server stopped');
    },
  };
}

function drop(rt: Runtime, counters: RadiusCounters, reason: DropReason, from: string, why?: string): void {
  counters.dropped[reason]++;
  rt.log.warn({ radius_drop: reason, from }, `RADIUS datagram from ${from} dropped: ${why ?? reason}`);
}

async function serve(
  rt: Runtime,
  socket: Socket,
  counters: RadiusCounters,
  cache: RetransmissionCache,
  raw: Buffer,
  address: string,
  port: number,
): Promise<void> {
  const from = `${address}:${port}`;
  try {
    const client = await radiusClientFor(rt, address);
    if (!client) return drop(rt, counters, 'unknown_client', from, 'no RADIUS client has this address');
    if (raw.length < 20) return drop(rt, counters, 'malformed', from, `${raw.length} octets`);
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
      return drop(rt, counters, reason, from, `${verified.reason} (client ${client.name})`);
    }
    const request = verified.packet;
    if (request.code !== CODE.AccessRequest && request.code !== CODE.StatusServer)
      return drop(rt, counters, 'unsupported_code', from, `code ${request.code}`);
    // RFC 2865 section 5.2: User-Password is 16 to 128 octets, a multiple of 16.
    const hidden = attributeOf(request, ATTRIBUTE.UserPassword);
    if (hidden && (hidden.length === 0 || hidden.length % 16 !== 0 || hidden.length > MAX_PASSWORD_LENGTH))
      return drop(
        rt,
        counters,
        'malformed',
        from,
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
      counters.retransmission++;
      const answer = await earlier;
      if (answer) socket.send(answer, port, address);
      return;
    }
    const answer = answerTo(rt, client, address, request, counters);
    cache.remember(key, answer);
    const encoded = await answer;
    if (encoded) socket.send(encoded, port, address);
  } catch (e) {
    rt.log.error({ err: e, from }, 'RADIUS datagram could not be answered');
    counters.dropped.internal_error++;
  }
}

/** The encoded answer, or undefined when the request is dropped after all. */
async function answerTo(
  rt: Runtime,
  client: RadiusClient,
  address: string,
  request: RadiusPacket,
  counters: RadiusCounters,
): Promise<Buffer | undefined> {
  let reply: RadiusReply;
  if (request.code === CODE.StatusServer) {
    counters.status++;
    reply = { code: CODE.AccessAccept, attributes: replyMessageAttributes('authsrv is alive') };
  } else {
    try {
      reply = await accessRequest(rt, client, address, request);
    } catch (e) {
      rt.log.error({ err: e }, 'RADIUS Access-Request not answered');
      counters.dropped.internal_error++;
      return undefined;
    }
    if (reply.code === CODE.AccessAccept) counters.accept++;
    else if (reply.code === CODE.AccessChallenge) counters.challenge++;
    else counters.reject++;
  }
  const proxyStates = request.attributes.filter((a) => a.type === ATTRIBUTE.ProxyState);
  return encodeResponse(
    { code: reply.code, identifier: request.identifier, attributes: [...reply.attributes, ...proxyStates] },
    request.authenticator,
    client.secret,
  );
}
