import { describe, expect, it } from 'vitest';
import { auditAction, openRoute } from '../../../src/http/middleware/index.ts';
import { Params } from '../../../src/http/params.ts';
import { runSteps, startedState } from '../../helpers/koa-steps.ts';

describe('openRoute', () => {
  it("names the audit action by privacyIDEA's URL rule", () => {
    expect(auditAction('get', '/system/:key')).toBe('GET /system/<key>');
    expect(auditAction('post', '/token/info/:serial/:key')).toBe('POST /token/info/<serial>/<key>');
  });

  it('opens the audit entry and merges the path variables into the parameters', async () => {
    const { state } = await runSteps([openRoute('POST /token/lost/<serial>', true)], {
      state: startedState({
        userAgent: 'privacyidea-cp/2.0 Windows',
        params: new Params({ serial: 'from-the-body', pin: '1234' }),
      }),
      pathParams: { serial: 'S1' },
    });
    const call = state.route!;
    expect(state.audit).toBe(call.audit);
    expect(call.audit).toMatchObject({
      action: 'POST /token/lost/<serial>',
      client: '192.0.2.1',
      startedAt: new Date('2026-03-01T12:00:00.000Z'),
      user_agent: 'privacyidea-cp',
      user_agent_version: '2.0',
    });
    expect({ ...call.params.values }).toEqual({ serial: 'S1', pin: '1234' });
    // The request's own parameters stay as they came: the error answer echoes their nonce.
    expect(state.params.values.serial).toBe('from-the-body');
  });

  it('gives an unaudited route an entry to fill that is never written', async () => {
    const { state } = await runSteps([openRoute('GET /healthz/', false)], { state: startedState() });
    expect(state.route!.audit.action).toBe('GET /healthz/');
    expect(state.audit).toBeUndefined();
  });
});
