import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAuditEntry } from '../../../src/core/audit/index.ts';
import type { Caller } from '../../../src/core/context.ts';
import { setPolicy } from '../../../src/core/policy/index.ts';
import { setRealm } from '../../../src/core/realm/index.ts';
import { saveResolver } from '../../../src/core/resolver/index.ts';
import { PolicyError } from '../../../src/errors.ts';
import { checkRight, type RouteAction, type RouteTarget } from '../../../src/http/middleware/index.ts';
import { Params } from '../../../src/http/params.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { aroundStep, runSteps, startedState } from '../../helpers/koa-steps.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

const ALICE: Caller = { role: 'admin', username: 'alice', realm: '', authtype: 'password', client: '' };

describe.each(testDialects())('checkRight on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
    const file = await writePasswdFile(t.dataDir, 'users', [{ login: 'bob', password: 'pw', uid: 1000 }]);
    await saveResolver(t.ctx, 'res1', { type: 'passwdresolver', Filename: file });
    for (const realm of ['realm1', 'realm2']) await setRealm(t.ctx, realm, ['res1'], {});
    // Once an admin policy exists, administrators may do only what the policies allow.
    await setPolicy(t.ctx, 'admins', { scope: 'admin', action: 'tokenlist', realm: 'realm1' });
  });
  afterAll(async () => t?.close());

  async function check(action: RouteAction, params: Record<string, string>, target?: RouteTarget) {
    const route = { params: new Params(params), audit: newAuditEntry('GET /x', new Date()), caller: ALICE };
    const { seen, steps } = aroundStep(checkRight(t.rt, action, target));
    await runSteps(steps, { state: startedState({ route }) });
    return seen;
  }

  it('lets the handler run when a policy grants the right for the target', async () => {
    expect(await check('tokenlist', { realm: 'realm1' })).toEqual({ nextRan: true });
  });

  it('refuses a right no policy grants, before the handler runs', async () => {
    const seen = await check('enable', { realm: 'realm1' });
    expect(seen.nextRan).toBe(false);
    expect(seen.thrown).toBeInstanceOf(PolicyError);
  });

  it("checks the target the parameters name, or the route's own target", async () => {
    expect((await check('tokenlist', { realm: 'realm2' })).thrown).toBeInstanceOf(PolicyError);
    expect(await check('tokenlist', { realm: 'realm2' }, () => ({ realm: 'realm1' }))).toEqual({
      nextRan: true,
    });
  });

  it("checks nothing for a route without an action, or without one for the caller's role", async () => {
    expect(await check(null, {})).toEqual({ nextRan: true });
    expect(await check({ user: 'enable' }, {})).toEqual({ nextRan: true });
    expect((await check({ admin: 'enable' }, {})).thrown).toBeInstanceOf(PolicyError);
  });
});
