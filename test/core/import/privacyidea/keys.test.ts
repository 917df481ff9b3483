// privacyIDEA's key file and encrypted values: the fixture's real values, PKCS#7 and the LinOTP
// padding of old rows, an encrypted key file, and the refusals.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PiKeys } from '../../../../src/core/import/privacyidea/keys.ts';
import { PI_FIXTURE, piManifest } from '../../../helpers/privacyidea-fixture.ts';

const keyBytes = readFileSync(join(PI_FIXTURE, 'encfile'));

function encrypt(key: Buffer, plain: Buffer, autoPadding = true): { iv: string; ct: string } {
  const iv = randomBytes(16);
  const c = createCipheriv('aes-256-cbc', key, iv);
  c.setAutoPadding(autoPadding);
  return { iv: iv.toString('hex'), ct: Buffer.concat([c.update(plain), c.final()]).toString('hex') };
}

/** LinOTP's padding: hex text of the value, 0x01 0x02, zeros to the block size. */
function legacyPadded(value: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(value.toString('hex'), 'latin1'), Buffer.from([1, 2])]);
  return Buffer.concat([body, Buffer.alloc((16 - (body.length % 16)) % 16)]);
}

describe('PiKeys', () => {
  const keys = new PiKeys(keyBytes);

  it("decrypts the fixture's token seed to the manifest's secret", () => {
    const db = new Database(join(PI_FIXTURE, 'pi.sqlite'), { readonly: true });
    const row = db.prepare("select key_enc, key_iv from token where serial = 'MIGHOTP01'").get() as {
      key_enc: string;
      key_iv: string;
    };
    db.close();
    const seedHex = keys.tokenValue(row.key_iv, row.key_enc).toString('latin1');
    expect(seedHex).toBe(piManifest.tokens.MIGHOTP01.stored_plaintext_of_key_enc);
  });

  it('reads PKCS#7 and LinOTP-padded values of the config slot, and reports what does not decrypt', () => {
    const config = keyBytes.subarray(32, 64);
    const modern = encrypt(config, Buffer.from('s3cret'));
    expect(keys.configValue(`${modern.iv}:${modern.ct}`)).toBe('s3cret');
    const legacy = encrypt(config, legacyPadded(Buffer.from('old-secret')), false);
    expect(keys.configValue(`${legacy.iv}:${legacy.ct}`)).toBe('old-secret');
    const wrongSlot = encrypt(keyBytes.subarray(0, 32), Buffer.from('s3cret'));
    expect(keys.configValue(`${wrongSlot.iv}:${wrongSlot.ct}`)).not.toBe('s3cret');
    expect(keys.configValue('no-iv-here')).toBeUndefined();
    expect(keys.configValue('00:zz')).toBeUndefined();
  });

  it('decrypts an encrypted OTP PIN (@@iv:ct) with the token slot', () => {
    const pin = encrypt(keyBytes.subarray(0, 32), Buffer.from('1234'));
    expect(keys.encryptedPin(`@@${pin.iv}:${pin.ct}`)).toBe('1234');
  });

  it('opens an encrypted key file with its password and refuses a wrong one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'authsrv-pikeys-'));
    const file = join(dir, 'encfile.enc');
    const sealed = encrypt(createHash('sha256').update('pw').digest(), legacyPadded(keyBytes), false);
    writeFileSync(file, `${sealed.iv}:${sealed.ct}`);
    const opened = PiKeys.fromFile(file, 'pw');
    const pin = encrypt(keyBytes.subarray(0, 32), Buffer.from('9876'));
    expect(opened.encryptedPin(`@@${pin.iv}:${pin.ct}`)).toBe('9876');
    expect(() => PiKeys.fromFile(file)).toThrow(/is encrypted: give its password/);
    expect(() => PiKeys.fromFile(file, 'wrong')).toThrow(/password of the privacyIDEA key file is wrong/);
    expect(() => PiKeys.fromFile(join(dir, 'missing'))).toThrow(/Cannot read the privacyIDEA key file/);
  });
});
