// clientCheck: the check a client application asks (the /validate endpoints; later RADIUS) records
// its client first — also for a malformed request and a failed check — and a failure to record
// is logged, never the check's failure.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { check, clientCheck } from '../../../src/core/validate/index.ts';
import { ParameterError, UserError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('clientCheck on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
  });
  afterEach(async () => t?.close());

  const seen = { ip: '192.0.2.7', userAgent: 'PAM/2.1 (linux)' };
  const clients = () =>
    t.rt.store.db.selectFrom('clients').select(['ip', 'clienttype', 'user_agent']).execute();

  it('records the client of a check that fails', async () => {
    await expect(clientCheck(t.rt, seen, () => ({ user: 'nobody', pass: 'x' }))).rejects.toBeInstanceOf(
      UserError,
    );
    expect(await clients()).toEqual([{ ip: '192.0.2.7', clienttype: 'PAM', user_agent: 'PAM/2.1 (linux)' }]);
  });

  it('records nothing for a check without a client application (/auth, the CLI)', async () => {
    await expect(check(t.rt, { user: 'nobody', pass: 'x', client: seen.ip })).rejects.toBeInstanceOf(
      UserError,
    );
    expect(await clients()).toEqual([]);
  });

  it('records the client before the request is read', async () => {
    const malformed = () => {
      throw new ParameterError("Parameter 'user' must be a string");
    };
    await expect(clientCheck(t.rt, seen, malformed)).rejects.toBeInstanceOf(ParameterError);
    expect(await clients()).toHaveLength(1);
  });

  it('logs a failure to record the client and goes on with the check', async () => {
    await t.rt.store.db.schema.dropTable('clients').execute();
    const warn = vi.spyOn(t.rt.log, 'warn');
    // The check itself runs: its own error, not the recording's, reaches the caller.
    await expect(clientCheck(t.rt, seen, () => ({ serial: 'NOSUCH', pass: 'x' }))).rejects.toThrow(
      'The requested token could not be found.',
    );
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ err: expect.anything() }),
      'client application could not be recorded',
    );
  });
});
