// OATH CSV token files (reference 3.5): seeds, types, lengths, counters and steps, version 2 owners.
import { describe, expect, it } from 'vitest';
import { parseOathCsv } from '../../../../src/core/token/import/oathcsv.ts';
import { SEED } from '../../../helpers/token-files.ts';

describe('OATH CSV', () => {
  it('reads hotp and totp lines with their defaults, skips comments and blank lines', () => {
    const r = parseOathCsv(
      [
        '# a comment',
        '',
        `H6, ${SEED}, hotp, 6, 12`,
        `H8,${SEED},hotp,8`,
        `HD, ${SEED}`,
        `T30, ${SEED}, totp, 6, 30`,
        `T60, ${SEED}, TOTP, 8, 60, sha256`,
        '   ',
        ',, ,,',
        '\r',
      ].join('\r\n'),
    );
    expect(r.rejected).toEqual([]);
    expect(r.tokens.map(({ source: _s, ...t }) => t)).toEqual([
      { serial: 'H6', type: 'hotp', otpkey: SEED, otplen: 6, counter: 12, user: undefined },
      { serial: 'H8', type: 'hotp', otpkey: SEED, otplen: 8, counter: 0, user: undefined },
      { serial: 'HD', type: 'hotp', otpkey: SEED, otplen: 6, counter: 0, user: undefined },
      { serial: 'T30', type: 'totp', otpkey: SEED, otplen: 6, timeStep: 30, user: undefined },
      {
        serial: 'T60',
        type: 'totp',
        otpkey: SEED,
        otplen: 8,
        timeStep: 60,
        hashlib: 'sha256',
        user: undefined,
      },
    ]);
  });

  it('reads the owner columns of version 2', () => {
    const r = parseOathCsv(`# version: 2\nalice, res1, realm1, V1, ${SEED}, hotp\n, , , V2, ${SEED}, totp\n`);
    expect(r.tokens.map((t) => [t.serial, t.user])).toEqual([
      ['V1', { username: 'alice', resolver: 'res1', realm: 'realm1' }],
      ['V2', undefined],
    ]);
  });

  it('rejects bad lines with the line number and the reason, and keeps the good ones', () => {
    const r = parseOathCsv(
      [
        `OK1, ${SEED}, hotp`,
        `BAD1, nothex, hotp`,
        `BAD2, ${SEED}, hotp, 7`,
        `BAD3, ${SEED}, totp, 6, 45`,
        `BAD4, ${SEED}, ocra, OCRA-1:HOTP-SHA1-6:QN08`,
        `BAD5, ${SEED}, tan, 1 2 3`,
        'BAD6,',
        `, ${SEED}, hotp`,
        `BAD7, ${SEED}, hotp, 6, x`,
      ].join('\n'),
    );
    expect(r.tokens.map((t) => t.serial)).toEqual(['OK1']);
    expect(r.rejected).toEqual([
      { serial: 'BAD1', source: 'line 2', reason: 'the key is not hexadecimal' },
      { serial: 'BAD2', source: 'line 3', reason: "the OTP length must be 6 or 8, not '7'" },
      { serial: 'BAD3', source: 'line 4', reason: "the time step must be 30 or 60, not '45'" },
      { serial: 'BAD4', source: 'line 5', reason: 'authsrv has no ocra token type' },
      { serial: 'BAD5', source: 'line 6', reason: 'authsrv has no tan token type' },
      { serial: 'BAD6', source: 'line 7', reason: 'no key' },
      { serial: undefined, source: 'line 8', reason: 'no serial' },
      { serial: 'BAD7', source: 'line 9', reason: "the counter 'x' is not a number" },
    ]);
  });
});
