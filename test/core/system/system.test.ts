import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hsmProtect, hsmState, hsmStatus } from '../../../src/core/system/index.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe('the security module as the services show it', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime('sqlite');
  });
  afterAll(async () => t?.close());

  it('tells whether the key is protected and ready; protecting it keeps this process unlocked', () => {
    expect(hsmState(t.ctx)).toEqual({ protected: false, ready: true });
    hsmProtect(t.ctx, 'Hsm-password-1');
    expect(hsmState(t.ctx)).toEqual({ protected: true, ready: true });
    expect(hsmStatus(t.ctx)).toEqual({ is_ready: true });
  });
});
