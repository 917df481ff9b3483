// Turns whatever the later steps throw into the request's failure, an AuthsrvError that knows its
// HTTP status and whether its message may be shown. What the client is not told goes to the log.
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';
import { valueRefusedByDatabase } from '../../core/limits.ts';
import { asAuthsrvError } from '../../errors.ts';
import { requestState } from '../state.ts';

export function catchFailure(rt: Pick<Runtime, 'log'>): Koa.Middleware {
  return async (koa, next) => {
    try {
      await next();
    } catch (e) {
      // A value the database refused as too long (or as unstorable text) is bad input, not a
      // server fault: its transaction has rolled back, so the answer is a ParameterError (905).
      const failure = asAuthsrvError(valueRefusedByDatabase(e) ?? e);
      if (!failure.expose) rt.log.error({ err: e, path: koa.path }, 'unexpected error');
      requestState(koa).failure = failure;
    }
  };
}
