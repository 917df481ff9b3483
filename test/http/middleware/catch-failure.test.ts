import type Koa from 'koa';
import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/core/context.ts';
import { ERR, InternalError, ParameterError, UserError } from '../../../src/errors.ts';
import { catchFailure } from '../../../src/http/middleware/index.ts';
import { recordingLog, runSteps, startedState } from '../../helpers/koa-steps.ts';

function throwing(e: unknown): Koa.Middleware {
  return async () => {
    throw e;
  };
}

async function failureOf(thrown: unknown) {
  const { lines, log } = recordingLog();
  const { state, status } = await runSteps([catchFailure({ log } as unknown as Runtime), throwing(thrown)], {
    path: '/token/',
    state: startedState(),
  });
  return { failure: state.failure, lines, status };
}

describe('catchFailure', () => {
  it('leaves no failure when the later steps succeed', async () => {
    const ok: Koa.Middleware = async (koa) => {
      koa.status = 204;
    };
    const { state } = await runSteps([catchFailure({ log: recordingLog().log } as unknown as Runtime), ok]);
    expect(state.failure).toBeUndefined();
  });

  it("keeps authsrv's own error as the failure, without logging it", async () => {
    const thrown = new UserError('gone');
    const { failure, lines, status } = await failureOf(thrown);
    expect(failure).toBe(thrown);
    expect(lines).toEqual([]);
    // Nothing is answered here: rendering the failure is the next step's job.
    expect(status).toBe(404);
  });

  it('wraps an unexpected error in an InternalError and logs the original with the path', async () => {
    const thrown = new TypeError('undefined is not a function');
    const { failure, lines } = await failureOf(thrown);
    expect(failure).toBeInstanceOf(InternalError);
    expect(failure!.cause).toBe(thrown);
    expect(lines).toEqual([
      { level: 'error', fields: { err: thrown, path: '/token/' }, message: 'unexpected error' },
    ]);
  });

  it('answers a value the database refused as too long with a ParameterError (905)', async () => {
    const refused = Object.assign(new Error('value too long for type character varying(80)'), {
      code: '22001',
    });
    const { failure, lines } = await failureOf(refused);
    expect(failure).toBeInstanceOf(ParameterError);
    expect(failure!.code).toBe(ERR.Parameter);
    expect(failure!.message).toBe('A parameter value is too long to be stored');
    expect(lines).toEqual([]);
  });
});
