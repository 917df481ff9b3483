import { describe, expect, it } from 'vitest';
import { newAuditEntry } from '../../../src/core/audit/index.ts';
import type { Caller, Runtime } from '../../../src/core/context.ts';
import { type ApiCall, runHandler } from '../../../src/http/middleware/index.ts';
import { Params } from '../../../src/http/params.ts';
import { runSteps, startedState } from '../../helpers/koa-steps.ts';

const rt = { node: 'n1' } as unknown as Runtime;

function routeState(caller?: Caller) {
  return startedState({
    route: { params: new Params({ serial: 'S1' }), audit: newAuditEntry('GET /x', new Date()), caller },
  });
}

describe('runHandler', () => {
  it('hands the handler the call and keeps its reply and status', async () => {
    let seen: ApiCall | undefined;
    const { state } = await runSteps(
      [
        runHandler(rt, (call) => {
          seen = call;
          call.audit.serial = call.params.required('serial');
          call.setStatus(503);
          return { value: 'not ready' };
        }),
      ],
      { state: routeState(), headers: { 'X-Custom': 'yes' } },
    );
    expect(seen!.rt).toBe(rt);
    expect(seen!.client).toBe('192.0.2.1');
    expect(seen!.headers['x-custom']).toBe('yes');
    expect(seen!.caller).toBeUndefined();
    expect(state.route!.audit.serial).toBe('S1');
    expect(state.reply).toEqual({ value: 'not ready' });
    expect(state.status).toBe(503);
  });

  it("gives the caller's service context, and refuses one on a route without roles", async () => {
    const caller: Caller = { role: 'admin', username: 'alice', realm: '', authtype: 'password', client: '' };
    let contextCaller: Caller | undefined;
    await runSteps(
      [
        runHandler(rt, ({ context }) => {
          contextCaller = context().caller;
          return { value: true };
        }),
      ],
      { state: routeState(caller) },
    );
    expect(contextCaller).toEqual(caller);
    let refused: unknown;
    await runSteps(
      [
        runHandler(rt, ({ context }) => {
          try {
            context();
          } catch (e) {
            refused = e;
          }
          return { value: true };
        }),
      ],
      { state: routeState() },
    );
    expect(refused).toBeInstanceOf(Error);
  });
});
