import { describe, expect, it } from 'vitest';
import { auditIntact } from '../../../src/core/audit/index.ts';

describe('auditIntact', () => {
  it('is a log without a bad signature and without a missing row', () => {
    expect(auditIntact({ checked: 3, badSignatures: [], gapsAfter: [] })).toBe(true);
    expect(auditIntact({ checked: 0, badSignatures: [], gapsAfter: [] })).toBe(true);
    expect(auditIntact({ checked: 3, badSignatures: [2], gapsAfter: [] })).toBe(false);
    expect(auditIntact({ checked: 3, badSignatures: [], gapsAfter: [1] })).toBe(false);
  });
});
