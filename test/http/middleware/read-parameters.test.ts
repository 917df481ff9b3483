import type Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { RequestBodyError } from '../../../src/errors.ts';
import { readParameters } from '../../../src/http/middleware/index.ts';
import { runSteps, startedState } from '../../helpers/koa-steps.ts';

/** Keeps what the step throws, and what the step after it saw. */
function around(step: Koa.Middleware) {
  const seen: { thrown?: unknown; nextRan: boolean } = { nextRan: false };
  const catcher: Koa.Middleware = async (koa, next) => {
    try {
      await next();
    } catch (e) {
      seen.thrown = e;
      koa.status = 204;
    }
  };
  const after: Koa.Middleware = async (koa) => {
    seen.nextRan = true;
    koa.status = 204;
  };
  return { seen, steps: [catcher, step, after] };
}

const JSON_BODY = { 'Content-Type': 'application/json' };

describe('readParameters', () => {
  it('merges the query string and the body before the next step runs', async () => {
    const { seen, steps } = around(readParameters(1000));
    const { state } = await runSteps(steps, {
      path: '/?serial=S1',
      headers: JSON_BODY,
      body: '{"otplen": 8}',
      state: startedState(),
    });
    expect(seen).toEqual({ nextRan: true });
    expect({ ...state.params.values }).toEqual({ serial: 'S1', otplen: 8 });
  });

  it('refuses a malformed body with HTTP 400 and keeps the query string (its nonce is echoed)', async () => {
    const { seen, steps } = around(readParameters(1000));
    const { state } = await runSteps(steps, {
      path: '/?nonce=n1',
      headers: JSON_BODY,
      body: '{"broken',
      state: startedState(),
    });
    expect(seen.nextRan).toBe(false);
    expect(seen.thrown).toBeInstanceOf(RequestBodyError);
    expect((seen.thrown as RequestBodyError).httpStatus).toBe(400);
    expect({ ...state.params.values }).toEqual({ nonce: 'n1' });
  });

  it('refuses a body larger than the limit with HTTP 413', async () => {
    const { seen, steps } = around(readParameters(10));
    await runSteps(steps, { headers: JSON_BODY, body: '{"pass": "far too long"}', state: startedState() });
    expect((seen.thrown as RequestBodyError).httpStatus).toBe(413);
  });
});
