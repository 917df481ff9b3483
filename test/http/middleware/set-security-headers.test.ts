import type Koa from 'koa';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/core/context.ts';
import { securityHeaders, setSecurityHeaders } from '../../../src/http/middleware/index.ts';
import { runSteps } from '../../helpers/koa-steps.ts';

const plain = { config: { http: { tlsCert: '' } } } as unknown as Runtime;
const tls = { config: { http: { tlsCert: '/etc/authsrv/cert.pem' } } } as unknown as Runtime;

const EVERY_ANSWER = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};

function headersOf(h: Headers): Record<string, string | null> {
  return Object.fromEntries(
    [...Object.keys(EVERY_ANSWER), 'strict-transport-security'].map((name) => [name, h.get(name)]),
  );
}

const answering =
  (status: number, body?: string, type?: string): Koa.Middleware =>
  async (koa) => {
    koa.status = status;
    if (body !== undefined) koa.body = body;
    if (type) koa.type = type;
  };

describe('setSecurityHeaders', () => {
  it('gives every answer the headers: JSON, a download, an empty one, a 404', async () => {
    for (const step of [
      answering(200, '{}', 'application/json'),
      answering(200, 'a,b\n', 'text/csv'),
      answering(204),
      answering(404),
    ]) {
      const r = await runSteps([setSecurityHeaders(plain), step]);
      expect(headersOf(r.headers)).toEqual({ ...EVERY_ANSWER, 'strict-transport-security': null });
    }
  });

  it('adds Strict-Transport-Security when the server speaks TLS', async () => {
    const r = await runSteps([setSecurityHeaders(tls), answering(200, '{}', 'application/json')]);
    expect(r.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect(securityHeaders(true)).toMatchObject({ 'Strict-Transport-Security': 'max-age=31536000' });
    expect(securityHeaders(false)).not.toHaveProperty('Strict-Transport-Security');
  });

  it("keeps them on Koa's last-resort answer to an error no step caught", async () => {
    const failing: Koa.Middleware = async () => {
      throw Object.assign(new Error('unavailable'), { status: 503, expose: true });
    };
    const r = await runSteps([setSecurityHeaders(tls), failing]);
    expect(r.status).toBe(503);
    expect(headersOf(r.headers)).toEqual({
      ...EVERY_ANSWER,
      'strict-transport-security': 'max-age=31536000',
    });
  });
});
