import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/core/context.ts';
import { startRequest } from '../../../src/http/middleware/index.ts';
import { runSteps } from '../../helpers/koa-steps.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');

function runtime(trustedProxies: string[]) {
  return { clock: () => NOW, config: { http: { trustedProxies } } } as unknown as Runtime;
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
});
