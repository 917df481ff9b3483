// The precedence of check_token_list's outcomes (reference 4.2.2, "first non-empty list wins").
import { describe, expect, it } from 'vitest';
import type { LoadedToken } from '../../../src/core/token/index.ts';
import {
  decidingVerdict,
  groupOf,
  PRECEDENCE,
  type Settled,
  type Verdict,
} from '../../../src/core/validate/precedence.ts';
import { VERDICTS } from '../../../src/core/validate/verdicts.ts';

const token = (serial: string) => ({ row: { serial } }) as unknown as LoadedToken;

function outcome(kind: Verdict, serial = 'T1'): Settled {
  const t = token(serial);
  switch (kind) {
    case 'unusable':
      return { kind, token: t, reason: 'Token is disabled' };
    case 'continuing':
      return { kind, token: t, next: { previous: '{}' } };
    case 'pinMatching':
      return { kind, token: t, otp: '123456' };
    default:
      return { kind, token: t };
  }
}

describe('check_token_list precedence', () => {
  it("ranks privacyIDEA's lists in its order, with 4eyes' further round before a new challenge", () => {
    expect(PRECEDENCE).toEqual([
      'accepted',
      'answering',
      'continuing',
      'requesting',
      'pinMatching',
      'invalid',
      'unusable',
    ]);
  });

  it('ranks every verdict exactly once', () => {
    expect(new Set(PRECEDENCE).size).toBe(PRECEDENCE.length);
    expect([...PRECEDENCE].sort()).toEqual(Object.keys(VERDICTS).sort());
  });

  it('decides by the highest rung any token reached, whatever the order of the tokens', () => {
    for (const [i, high] of PRECEDENCE.entries()) {
      for (const low of PRECEDENCE.slice(i + 1)) {
        expect(decidingVerdict([outcome(low), outcome(high)])).toBe(high);
        expect(decidingVerdict([outcome(high), outcome(low)])).toBe(high);
      }
    }
  });

  it('has no verdict without outcomes', () => {
    expect(decidingVerdict([])).toBeUndefined();
  });

  it('groups the outcomes of the deciding rung in their order', () => {
    const outcomes = [outcome('invalid', 'A'), outcome('pinMatching', 'B'), outcome('invalid', 'C')];
    const verdict = decidingVerdict(outcomes);
    expect(verdict).toBe('pinMatching');
    expect(groupOf(outcomes, 'invalid').map((x) => x.token.row.serial)).toEqual(['A', 'C']);
  });
});
