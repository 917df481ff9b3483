import { describe, expect, it } from 'vitest';
import { RequestBodyError } from '../../../src/errors.ts';
import { readParameters } from '../../../src/http/middleware/index.ts';
import { aroundStep, runSteps, startedState } from '../../helpers/koa-steps.ts';

const JSON_BODY = { 'Content-Type': 'application/json' };

describe('readParameters', () => {
  it('merges the query string and the body before the next step runs', async () => {
    const { seen, steps } = aroundStep(readParameters(1000));
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
    const { seen, steps } = aroundStep(readParameters(1000));
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
    const { seen, steps } = aroundStep(readParameters(10));
    await runSteps(steps, { headers: JSON_BODY, body: '{"pass": "far too long"}', state: startedState() });
    expect((seen.thrown as RequestBodyError).httpStatus).toBe(413);
  });

  it('refuses a JSON value nested too deeply with HTTP 400 before the next step runs', async () => {
    const { seen, steps } = aroundStep(readParameters(100_000));
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const { state } = await runSteps(steps, {
      path: '/?nonce=n1',
      headers: JSON_BODY,
      body: `{"serial": "S1", "nonce": ${deep}}`,
      state: startedState(),
    });
    expect(seen.nextRan).toBe(false);
    expect((seen.thrown as RequestBodyError).httpStatus).toBe(400);
    expect((seen.thrown as RequestBodyError).message).toBe(
      'The JSON request body is nested deeper than 32 levels',
    );
    expect({ ...state.params.values }).toEqual({ nonce: 'n1' });
  });

  it('refuses too many parameters, also when the query string holds them', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => `p${i}=v`).join('&');
    for (const request of [
      { path: '/', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: many },
      { path: `/?${many}` },
    ]) {
      const { seen, steps } = aroundStep(readParameters(100_000));
      const { state } = await runSteps(steps, { ...request, state: startedState() });
      expect(seen.nextRan).toBe(false);
      expect((seen.thrown as RequestBodyError).httpStatus).toBe(400);
      expect({ ...state.params.values }).toEqual({});
    }
  });
});
