// The SMPP SMS provider against the `smpp` package's own server on loopback: the bind with
// SYSTEM_ID and PASSWORD, the submit_sm with the address flags and the mangled phone number, a
// refused bind, a refused message, an SMSC that never answers (TIMEOUT) and a refused connection.
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import smpp, { type PDU, type Server, type Session } from 'smpp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SmsSendError } from '../../../src/gateways/sms/provider.ts';
import { smppProvider } from '../../../src/gateways/sms/smpp.ts';

const env = { log: pino({ level: 'silent' }), scriptsDir: '/nonexistent' };
let server: Server;
let port: number;
const sessions: Session[] = [];
let binds: PDU[] = [];
let submits: PDU[] = [];
let behaviour: 'accept' | 'refuse-submit' | 'silent' = 'accept';

beforeAll(async () => {
  server = smpp.createServer((session) => {
    sessions.push(session);
    session.on('error', () => undefined);
    session.on('bind_transmitter', (pdu: PDU) => {
      binds.push(pdu);
      if (behaviour === 'silent') return;
      const good = pdu.system_id === 'authsrv' && pdu.password === 'smpp-pw';
      session.send(pdu.response(good ? {} : { command_status: smpp.ESME_RBINDFAIL }));
    });
    session.on('submit_sm', (pdu: PDU) => {
      submits.push(pdu);
      session.send(
        pdu.response(
          behaviour === 'refuse-submit' ? { command_status: smpp.ESME_RSUBMITFAIL } : { message_id: '1' },
        ),
      );
    });
    session.on('unbind', (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const s of sessions) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  binds = [];
  submits = [];
  behaviour = 'accept';
});

const gateway = (options: Record<string, string> = {}) => ({
  options: {
    SMSC_HOST: '127.0.0.1',
    SMSC_PORT: String(port),
    SYSTEM_ID: 'authsrv',
    PASSWORD: 'smpp-pw',
    ...options,
  },
  headers: {},
});

const text = (pdu: PDU) => (pdu.short_message as { message: string }).message;

describe('SMPP SMS provider', () => {
  it('binds and submits the message to the mangled phone number with the address flags', async () => {
    await smppProvider.send(
      gateway({
        S_ADDR: 'AUTHSRV',
        S_ADDR_TON: '0x05',
        S_ADDR_NPI: '0',
        D_ADDR_TON: '1',
        D_ADDR_NPI: '1',
        REGEXP: '/^\\+//',
      }),
      '+491511234',
      'Your code 123456',
      env,
    );
    expect(binds.map((b) => [b.system_id, b.password])).toEqual([['authsrv', 'smpp-pw']]);
    expect(submits).toHaveLength(1);
    const s = submits[0]!;
    expect([s.source_addr, s.source_addr_ton, s.source_addr_npi]).toEqual(['AUTHSRV', 5, 0]);
    expect([s.destination_addr, s.dest_addr_ton, s.dest_addr_npi]).toEqual(['491511234', 1, 1]);
    expect(text(s)).toBe('Your code 123456');
  });

  it('reports a refused bind and a refused message', async () => {
    await expect(smppProvider.send(gateway({ PASSWORD: 'wrong' }), '1', 'm', env)).rejects.toThrow(
      new SmsSendError(`the SMSC 127.0.0.1:${port} refused the bind (status ${smpp.ESME_RBINDFAIL})`),
    );
    expect(submits).toHaveLength(0);
    behaviour = 'refuse-submit';
    await expect(smppProvider.send(gateway(), '1', 'm', env)).rejects.toThrow(
      `the SMSC 127.0.0.1:${port} refused the message (status ${smpp.ESME_RSUBMITFAIL})`,
    );
  });

  it('gives up after TIMEOUT on an SMSC that never answers', async () => {
    behaviour = 'silent';
    await expect(smppProvider.send(gateway({ TIMEOUT: '0.3' }), '1', 'm', env)).rejects.toThrow(
      `no answer from the SMSC 127.0.0.1:${port} within 0.3 s`,
    );
    expect(binds).toHaveLength(1);
  });

  it('reports a refused connection and refuses bad settings', async () => {
    const closed = smpp.createServer(() => undefined);
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const free = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(smppProvider.send(gateway({ SMSC_PORT: String(free) }), '1', 'm', env)).rejects.toThrow(
      `cannot reach the SMSC 127.0.0.1:${free}: ECONNREFUSED`,
    );
    const check = (o: Record<string, string>) => () => smppProvider.check(gateway(o), env);
    expect(check({ SMSC_PORT: '70000' })).toThrow('SMSC_PORT must be a whole number from 1 to 65535');
    expect(check({ S_ADDR_TON: 'x' })).toThrow('S_ADDR_TON must be a whole number from 0 to 255');
    expect(check({ SMSC_HOST: ' ' })).toThrow('SMSC_HOST must name a host');
    expect(check({ S_ADDR_TON: '0x1' })).not.toThrow();
  });
});
