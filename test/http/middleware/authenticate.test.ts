import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAuditEntry } from '../../../src/core/audit/index.ts';
import { addAdmin, login } from '../../../src/core/auth/index.ts';
import type { Role } from '../../../src/core/context.ts';
import { AuthError, ERR } from '../../../src/errors.ts';
import { authenticate } from '../../../src/http/middleware/index.ts';
import { Params } from '../../../src/http/params.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { aroundStep, runSteps, startedState } from '../../helpers/koa-steps.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('authenticate on %s', (dialect) => {
  let t: TestRuntime;
  let jwt: string;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
    await addAdmin(t.ctx, 'alice', 'correct horse battery');
    const result = await login(t.rt, {
      username: 'alice',
      password: 'correct horse battery',
      realm: undefined,
      client: '',
    });
    if (!('token' in result)) throw new Error('no JWT');
    jwt = result.token;
  });
  afterAll(async () => t?.close());

  async function run(roles: Role[], headers: Record<string, string>) {
    const audit = newAuditEntry('GET /token/', new Date());
    const { seen, steps } = aroundStep(authenticate(t.rt, roles));
    const { state } = await runSteps(steps, {
      headers,
      state: startedState({ route: { params: new Params({}), audit } }),
    });
    return { seen, call: state.route! };
  }

  it('verifies the JWT of PI-Authorization and names the administrator in the audit entry', async () => {
    const { seen, call } = await run(['admin'], { 'PI-Authorization': jwt });
    expect(seen).toEqual({ nextRan: true });
    expect(call.caller).toMatchObject({ role: 'admin', username: 'alice', realm: '' });
    expect(call.audit.administrator).toBe('alice');
  });

  it('takes Authorization when PI-Authorization is absent', async () => {
    const { call } = await run(['admin', 'user'], { Authorization: jwt });
    expect(call.caller?.username).toBe('alice');
  });

  it('refuses a request without a JWT, or a role the route does not admit, before the next step', async () => {
    const missing = await run(['admin'], {});
    expect(missing.seen.nextRan).toBe(false);
    expect(missing.seen.thrown).toBeInstanceOf(AuthError);
    expect((missing.seen.thrown as AuthError).code).toBe(ERR.MissingAuthHeader);
    const wrongRole = await run(['user'], { Authorization: jwt });
    expect((wrongRole.seen.thrown as AuthError).code).toBe(ERR.MissingRight);
    expect(wrongRole.call.caller).toBeUndefined();
  });
});
