// The QR codes of the enrollment detail decode to the text they were made of, read back by an
// independent decoder (Debian's zbarimg; .ci/run installs zbar-tools).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { qrDataUrl } from '../../src/tokens/qr.ts';
import { decodeQrFile } from '../helpers/qr-decode.ts';

const dir = mkdtempSync(join(tmpdir(), 'authsrv-qr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function decode(dataUrl: string): string {
  const [head, body] = dataUrl.split(',');
  expect(head).toBe('data:image/png;base64');
  const file = join(dir, 'code.png');
  writeFileSync(file, Buffer.from(body!, 'base64'));
  return decodeQrFile(file);
}

describe('qrDataUrl', () => {
  it('draws a PNG that decodes to the otpauth URI, the seed and the oathtoken URL', () => {
    for (const text of [
      'otpauth://totp/TOTP0000C536?secret=LO33ANXKQYDWOWOSEMK6UHJS3AD6ZFGK&period=30&digits=6&creator=privacyidea&issuer=privacyIDEA&serial=TOTP0000C536',
      'seed://3132333435363738393031323334353637383930',
      `oathtoken:///addToken?name=OATH0001&lockdown=true&key=${'ab'.repeat(64)}`,
    ])
      expect(decode(qrDataUrl(text))).toBe(text);
  });
});
