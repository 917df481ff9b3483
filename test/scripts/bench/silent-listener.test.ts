// Scenario 8's SMTP server that never answers (scripts/bench/silent-listener.ts): it accepts, never
// writes a byte, counts the connections and drops them when closed.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startSilentListener } from '../../../scripts/bench/silent-listener.ts';

describe('the silent SMTP listener', () => {
  it('accepts connections, says nothing, and drops them when closed', async () => {
    const listener = await startSilentListener();
    const socket = connect(listener.port, '127.0.0.1');
    let received = 0;
    socket.on('data', (d: Buffer) => {
      received += d.length;
    });
    // The listener drops the connection with the client's words unread: a reset is expected.
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('EHLO client\r\n');
    // The server side counts the connection once its handler ran: wait for that, not for a time.
    while (listener.accepted() === 0) await new Promise((r) => setImmediate(r));
    expect(listener.accepted()).toBe(1);
    await listener.close();
    await closed;
    expect(received).toBe(0);
    // Closed: no longer listening.
    const refused = await new Promise<string>((resolve) => {
      const s = connect(listener.port, '127.0.0.1');
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      s.on('connect', () => {
        s.destroy();
        resolve('connected');
      });
    });
    expect(refused).toBe('ECONNREFUSED');
  });
});
