// The checks of a token file request before its parser runs.
import { describe, expect, it } from 'vitest';
import { parseTokenFile } from '../../../../src/core/token/import/token-file.ts';
import { ParameterError, TokenAdminError } from '../../../../src/errors.ts';

describe('file checks', () => {
  it('empty file → ERR905, unknown type → ERR301, bad psk → ERR301', async () => {
    const empty = () => parseTokenFile({ type: 'oathcsv', content: '  \n' });
    await expect(empty()).rejects.toThrow(ParameterError);
    await expect(empty()).rejects.toThrow('Error loading token file. File empty!');
    const unknown = () => parseTokenFile({ type: 'csv', content: 'x' });
    await expect(unknown()).rejects.toThrow(TokenAdminError);
    await expect(unknown()).rejects.toThrow(
      "Unknown file type: 'csv'. Supported file types are: aladdin-xml, oathcsv, OATH CSV, yubikeycsv, Yubikey CSV, pskc",
    );
    await expect(parseTokenFile({ type: 'pskc', content: 'x', psk: 'abc' })).rejects.toThrow(
      /32 characters long/,
    );
  });

  it('a type named like an Object.prototype member is unknown (was HTTP 500 on /token/load)', async () => {
    for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const parsed = parseTokenFile({ type, content: 'S1, 3132, hotp' });
      await expect(parsed, type).rejects.toThrow(TokenAdminError);
      await expect(parseTokenFile({ type, content: 'x' })).rejects.toThrow(`Unknown file type: '${type}'`);
    }
  });
});
