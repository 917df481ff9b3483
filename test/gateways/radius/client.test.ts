// The RADIUS client against FreeRADIUS (test/helpers/freeradius.ts): accept, reject, challenge
// and its answer with State; and the failure paths: wrong secret, the server stopped, a server
// that never answers, an answer signed with another secret.
import { createSocket, type Socket } from 'node:dgram';
import { describe, expect, it } from 'vitest';
import { sendAccessRequest } from '../../../src/gateways/radius/index.ts';
import { CODE, decodePacket, encodeResponse } from '../../../src/radius-packet/index.ts';
import {
  freeUdpPort,
  RADIUS_ALICE_PASSWORD,
  RADIUS_CHAL_FIRST,
  RADIUS_CHAL_MESSAGE,
  RADIUS_CHAL_SECOND,
  RADIUS_CHAL_STATE,
  RADIUS_SECRET,
  useFreeRadius,
} from '../../helpers/freeradius.ts';

describe('sendAccessRequest to FreeRADIUS', () => {
  const fr = useFreeRadius();
  const target = () => ({
    server: '127.0.0.1',
    port: fr.port,
    secret: RADIUS_SECRET,
    timeout: 2,
    retries: 1,
  });

  it('gets Access-Accept for the right password, Access-Reject for a wrong one', async () => {
    expect(await sendAccessRequest(target(), { user: 'alice', password: RADIUS_ALICE_PASSWORD })).toEqual({
      kind: 'accept',
      message: 'Hello alice',
    });
    expect(await sendAccessRequest(target(), { user: 'alice', password: 'wrong' })).toMatchObject({
      kind: 'reject',
    });
    expect(await sendAccessRequest(target(), { user: 'nobody', password: 'x' })).toMatchObject({
      kind: 'reject',
    });
  });

  it('gets an Access-Challenge with State, and Access-Accept for the answer sent with that State', async () => {
    const first = await sendAccessRequest(target(), { user: 'chal', password: RADIUS_CHAL_FIRST });
    expect(first).toEqual({
      kind: 'challenge',
      state: Buffer.from(RADIUS_CHAL_STATE, 'hex'),
      message: RADIUS_CHAL_MESSAGE,
    });
    const state = first.kind === 'challenge' ? first.state : undefined;
    expect(
      await sendAccessRequest(target(), { user: 'chal', password: RADIUS_CHAL_SECOND, state }),
    ).toMatchObject({
      kind: 'accept',
    });
    // Without the State the second code is a wrong password.
    expect(await sendAccessRequest(target(), { user: 'chal', password: RADIUS_CHAL_SECOND })).toMatchObject({
      kind: 'reject',
    });
  });

  it('with a wrong secret gets no answer (FreeRADIUS drops the request): failed, with the reason', async () => {
    const r = await sendAccessRequest(
      { ...target(), secret: 'not-the-secret', timeout: 1, retries: 0 },
      { user: 'alice', password: RADIUS_ALICE_PASSWORD },
    );
    expect(r).toEqual({
      kind: 'failed',
      reason: `no answer from 127.0.0.1:${fr.port} (a server stays silent to a client or secret it does not know); 1 tries of 1 s`,
    });
    expect(fr.output()).toContain('invalid Message-Authenticator');
  });

  // The last test of the block: FreeRADIUS stopped, its port closed.
  it('to the server stopped: refused (nothing listens there), without waiting for the timeout', async () => {
    await fr.stop();
    const r = await sendAccessRequest(
      { ...target(), timeout: 30, retries: 2 },
      { user: 'alice', password: 'x' },
    );
    expect(r).toEqual({
      kind: 'failed',
      reason: `127.0.0.1:${fr.port} refused the request (nothing listens there)`,
    });
  });
});

describe('sendAccessRequest failing', () => {
  /** A UDP peer on 127.0.0.1 that counts requests and answers them with `answer` (or not at all). */
  async function peer(
    answer?: (raw: Buffer) => Buffer,
  ): Promise<{ socket: Socket; port: number; received: () => number }> {
    const socket = createSocket('udp4');
    let received = 0;
    socket.on('message', (msg, from) => {
      received++;
      if (answer) socket.send(answer(msg), from.port, from.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return { socket, port: socket.address().port, received: () => received };
  }

  it('to a server that never answers: every retry sent, then a timeout with the reason', async () => {
    const silent = await peer();
    try {
      const r = await sendAccessRequest(
        { server: '127.0.0.1', port: silent.port, secret: RADIUS_SECRET, timeout: 0.2, retries: 2 },
        { user: 'alice', password: 'x' },
      );
      expect(r).toMatchObject({ kind: 'failed', reason: expect.stringContaining('3 tries of 0.2 s') });
      expect(silent.received()).toBe(3);
    } finally {
      silent.socket.close();
    }
  });

  it('with an answer signed with another secret: discarded, and the reason says why', async () => {
    const forger = await peer((raw) => {
      const req = decodePacket(raw);
      return encodeResponse(
        { code: CODE.AccessAccept, identifier: req.identifier, attributes: [] },
        req.authenticator,
        Buffer.from('forged'),
      );
    });
    try {
      const r = await sendAccessRequest(
        { server: '127.0.0.1', port: forger.port, secret: RADIUS_SECRET, timeout: 0.3, retries: 0 },
        { user: 'alice', password: 'x' },
      );
      expect(r).toMatchObject({
        kind: 'failed',
        reason: expect.stringContaining('were discarded: the Response Authenticator is wrong'),
      });
    } finally {
      forger.socket.close();
    }
  });

  it('to a name that does not resolve: failed, with the reason', async () => {
    const r = await sendAccessRequest(
      { server: 'no-such-host.invalid', port: await freeUdpPort(), secret: 's', timeout: 1, retries: 0 },
      { user: 'alice', password: 'x' },
    );
    expect(r).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('cannot send to no-such-host.invalid'),
    });
  });
});
