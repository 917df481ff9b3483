import type Koa from 'koa';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/core/context.ts';
import { INTERNAL_ERROR_TEXT } from '../../../src/http/envelope.ts';
import { startRequest } from '../../../src/http/middleware/index.ts';
import { recordingLog, runSteps } from '../../helpers/koa-steps.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');

function runtime(trustedProxies: string[], log = recordingLog().log) {
  return { clock: () => NOW, config: { http: { trustedProxies } }, log } as unknown as Runtime;
}

describe('startRequest', () => {
  it('records the start, the client, the User-Agent, and empty parameters before the body is read', async () => {
    const { state } = await runSteps([startRequest(runtime([]))], {
      path: '/x?serial=S1',
      headers: { 'User-Agent': 'privacyidea-cp/2.0 Windows' },
    });
    expect(state.startedAt).toEqual(NOW);
    expect(state.client).toBe('127.0.0.1');
    expect(state.userAgent).toBe('privacyidea-cp/2.0 Windows');
    expect(Object.keys(state.params.values)).toEqual([]);
  });

  it('takes the client from X-Forwarded-For only behind a trusted proxy', async () => {
    const headers = { 'X-Forwarded-For': '198.51.100.7' };
    const trusted = await runSteps([startRequest(runtime(['127.0.0.1']))], { headers });
    expect(trusted.state.client).toBe('198.51.100.7');
    const untrusted = await runSteps([startRequest(runtime(['10.0.0.0/8']))], { headers });
    expect(untrusted.state.client).toBe('127.0.0.1');
  });

  it("answers whatever escapes the later steps with the internal error envelope, never Koa's plain text", async () => {
    const { lines, log } = recordingLog();
    const throwing: Koa.Middleware = async () => {
      throw new Error('escaped every step');
    };
    const r = await runSteps([startRequest(runtime([], log)), throwing], { path: '/token/' });
    expect(r.status).toBe(500);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(r.text).result).toEqual({
      status: false,
      error: { code: -500, message: INTERNAL_ERROR_TEXT },
    });
    expect(lines.map((l) => [l.message, l.fields.path])).toEqual([
      ['unexpected error outside the request steps', '/token/'],
    ]);
  });

  it('answers a failure of its own preparation with the envelope too', async () => {
    const rt = {
      ...runtime([]),
      clock: () => {
        throw new Error('clock stopped');
      },
    } as unknown as Runtime;
    const r = await runSteps([startRequest(rt)]);
    expect(r.status).toBe(500);
    expect(JSON.parse(r.text).result.error.code).toBe(-500);
  });
});
