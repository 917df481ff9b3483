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
});
