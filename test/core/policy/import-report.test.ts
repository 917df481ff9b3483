import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deletePolicy,
  exportPolicies,
  getPolicies,
  importPoliciesReport,
  setPolicy,
} from '../../../src/core/policy/index.ts';
import { ParameterError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('importPoliciesReport on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  it('imports the file and tells, in file order, which policies it created, updated or left alone', async () => {
    await setPolicy(t.ctx, 'pol1', { scope: 'admin', action: 'tokenlist' });
    await setPolicy(t.ctx, 'pol2', { scope: 'webui', action: 'login_mode=userstore' });
    await setPolicy(t.ctx, 'pol3', { scope: 'user', action: 'enable' });
    const { text: file } = await exportPolicies(t.ctx);
    const exported = await getPolicies(t.ctx);
    await deletePolicy(t.ctx, 'pol1');
    await setPolicy(t.ctx, 'pol2', { scope: 'webui', action: 'login_mode=privacyIDEA' });

    expect(await importPoliciesReport(t.ctx, file)).toEqual([
      { name: 'pol1', outcome: 'created' },
      { name: 'pol2', outcome: 'updated' },
      { name: 'pol3', outcome: 'unchanged' },
    ]);
    const { pol1: _new, ...rest } = await getPolicies(t.ctx);
    const { pol1: _old, ...before } = exported;
    expect(rest).toEqual(before);
  });

  it('reports nothing and changes nothing when a policy of the file is bad', async () => {
    const before = await getPolicies(t.ctx);
    const bad =
      '[pol3]\nscope = "admin"\naction = "tokenlist"\n\n[pol4]\nscope = "nosuchscope"\naction = "x"\n';
    await expect(importPoliciesReport(t.ctx, bad)).rejects.toThrow(ParameterError);
    expect(await getPolicies(t.ctx)).toEqual(before);
  });
});
