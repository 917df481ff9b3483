// Yubico personalization tool CSV files: Yubico OTP and OATH-HOTP slots.
import { describe, expect, it } from 'vitest';
import { parseYubikeyCsv } from '../../../../src/core/token/import/yubikeycsv.ts';

describe('Yubikey CSV', () => {
  it('maps the personalization log: Yubico OTP → yubikey, OATH-HOTP → hotp, static → not imported', () => {
    const r = parseYubikeyCsv(
      [
        'Yubico OTP,12/11/2013 11:10,1,vvgutbiedkvi,ab86c04de6a3,d26a7c0f85fdda28bd816e406342b214,,,0,0,0,0,0,0,0,0,0,0',
        'OATH-HOTP,11.12.13 18:55,1,cccccccccccb,,916821d3a138bf855e70069605559a206ba854cd,,,0,0,0,6,0,0,0,0,0,0',
        'Static Password,11.12.13 19:08,1,,d5a3d50327dc,0e8e37b0e38b314a56748c030f58d21d,,,0,0,0,0,0,0,0,0,0,0',
        '508326,,0,69cfb9202438ca68964ec3244bfa4843d073a43b,,2013-12-12T08:41:07,',
        '508327,cccccccccccc,83cebdfb7b93,a47c5bf9c152202f577be6721c0113af,,2013-12-12T08:43:17,',
        '508328,,,9e2fd386224a7f77e9b5aee775464033,,2013-12-12T08:44:34,',
        'too,short',
      ].join('\n'),
    );
    expect(r.tokens.map(({ source: _s, ...t }) => t)).toEqual([
      {
        serial: 'UBAM280782705994231_1', // modhex vvgutbiedkvi = 0xff5ed17329f7
        type: 'yubikey',
        otpkey: 'd26a7c0f85fdda28bd816e406342b214',
        otplen: 44,
        description: 'vvgutbiedkvi',
      },
      {
        serial: 'UBOM00000001_1',
        type: 'hotp',
        otpkey: '916821d3a138bf855e70069605559a206ba854cd',
        otplen: 6,
        description: 'cccccccccccb',
      },
      {
        serial: 'UBOM508326_X',
        type: 'hotp',
        otpkey: '69cfb9202438ca68964ec3244bfa4843d073a43b',
        otplen: 6,
        description: '',
      },
      {
        serial: 'UBAM508327_X',
        type: 'yubikey',
        otpkey: 'a47c5bf9c152202f577be6721c0113af',
        otplen: 44,
        description: 'cccccccccccc',
      },
    ]);
    expect(r.rejected.map((x) => [x.source, x.reason])).toEqual([
      ['line 3', 'static passwords can not be imported'],
      ['line 6', 'static passwords can not be imported'],
      ['line 7', 'not enough columns'],
    ]);
  });
});
