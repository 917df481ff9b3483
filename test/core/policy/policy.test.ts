import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportPolicies, policyDefs, setPolicy } from '../../../src/core/policy/index.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe('policyDefs and exportPolicies', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime('sqlite');
  });
  afterAll(async () => t?.close());

  it('says what kind of definitions it answers', async () => {
    const kind = async (scope?: string) => (await policyDefs(t.rt, scope)).kind;
    expect(await kind()).toBe('scopes');
    expect(await kind('admin')).toBe('actions');
    expect(await kind('conditions')).toBe('conditions');
    expect(await kind('servicenodes')).toBe('nodes');
    expect(await kind('pinodes')).toBe('nodes');
    expect(await policyDefs(t.rt, 'nosuchscope')).toEqual({ kind: 'unknown', defs: {} });
    expect((await policyDefs(t.rt, 'servicenodes')).defs).toEqual(['test-node']);
  });

  it('exports the text of every policy with their number', async () => {
    expect(await exportPolicies(t.rt)).toEqual({ text: expect.any(String), count: 0 });
    await setPolicy(t.ctx, 'pol1', { scope: 'admin', action: 'tokenlist' });
    await setPolicy(t.ctx, 'pol2', { scope: 'user', action: 'enable' });
    const { text, count } = await exportPolicies(t.rt);
    expect(count).toBe(2);
    expect(text).toMatch(/\[pol1\][\s\S]*\[pol2\]/);
  });
});
