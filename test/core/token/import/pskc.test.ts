// PSKC token files (RFC 6030), built by test/helpers/token-files.ts: plain, pre-shared key and
// password-derived key, with ValueMAC checks.
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parsePskc } from '../../../../src/core/token/import/pskc.ts';
import { pskcFile, SEED } from '../../../helpers/token-files.ts';

describe('PSKC', () => {
  const psk = randomBytes(16);

  it('reads plain secrets with counter, time step, length and suite', async () => {
    const r = await parsePskc(
      pskcFile([
        { serial: 'P1', type: 'hotp', secret: SEED, otplen: 8, counter: 5, manufacturer: 'ACME' },
        { serial: 'P2', type: 'totp', secret: SEED, timeStep: 60, suite: 'HMAC-SHA256' },
      ]),
    );
    expect(r.rejected).toEqual([]);
    expect(r.tokens.map(({ source: _s, ...t }) => t)).toEqual([
      {
        serial: 'P1',
        type: 'hotp',
        otpkey: SEED,
        otplen: 8,
        counter: 5,
        hashlib: 'sha1',
        description: 'ACME',
      },
      {
        serial: 'P2',
        type: 'totp',
        otpkey: SEED,
        otplen: 6,
        timeStep: 60,
        hashlib: 'sha256',
        description: 'Token Works',
      },
    ]);
  });

  it('decrypts secrets with the pre-shared key and checks their MAC', async () => {
    const file = pskcFile(
      [
        { serial: 'E1', type: 'hotp', secret: SEED, counter: 3 },
        { serial: 'E2', type: 'totp', secret: 'ab'.repeat(20), timeStep: 30 },
      ],
      psk,
    );
    const r = await parsePskc(file, { psk: psk.toString('hex') });
    expect(r.rejected).toEqual([]);
    expect(r.tokens.map((t) => [t.serial, t.otpkey, t.counter])).toEqual([
      ['E1', SEED, 3],
      ['E2', 'ab'.repeat(20), undefined],
    ]);
  });

  it('derives the key from a password (PBKDF2)', async () => {
    const salt = randomBytes(8);
    const key = pbkdf2Sync('qwerty', salt, 1000, 16, 'sha1');
    const file = pskcFile([{ serial: 'D1', type: 'hotp', secret: SEED }], key, { salt, rounds: 1000 });
    expect((await parsePskc(file, { password: 'qwerty' })).tokens.map((t) => t.otpkey)).toEqual([SEED]);
    await expect(parsePskc(file, {})).rejects.toThrow(/no password is given/);
    // The file sets the work of the derivation: an absurd IterationCount is refused at once.
    const absurd = pskcFile([{ serial: 'D2', type: 'hotp', secret: SEED }], key, { salt, rounds: 2 ** 31 });
    await expect(parsePskc(absurd, { password: 'qwerty' })).rejects.toThrow(
      /IterationCount is above 10000000/,
    );
    // A wrong password gives a wrong key: every MAC is wrong.
    expect((await parsePskc(file, { password: 'wrong' })).tokens).toEqual([]);
  });

  it('handles wrong MACs as pskcValidateMAC says', async () => {
    const file = pskcFile(
      [
        { serial: 'M1', type: 'hotp', secret: SEED },
        { serial: 'M2', type: 'hotp', secret: SEED, badMac: true },
      ],
      psk,
    );
    const hex = psk.toString('hex');
    const hard = await parsePskc(file, { psk: hex });
    expect(hard.tokens).toEqual([]);
    expect(hard.rejected.map((x) => x.serial).sort()).toEqual(['M1', 'M2']);
    const soft = await parsePskc(file, { psk: hex, validateMac: 'check_fail_soft' });
    expect(soft.tokens.map((t) => t.serial)).toEqual(['M1']);
    expect(soft.rejected).toEqual([
      { serial: 'M2', source: 'KeyPackage 2', reason: 'the MAC of the secret is wrong' },
    ]);
    expect(
      (await parsePskc(file, { psk: hex, validateMac: 'no_check' })).tokens.map((t) => t.serial),
    ).toEqual(['M1', 'M2']);
  });

  it('with a wrong pre-shared key: nothing imported (MAC checks) or an error (no_check)', async () => {
    const file = pskcFile([{ serial: 'W1', type: 'hotp', secret: SEED }], psk);
    const wrong = Buffer.alloc(16, 7).toString('hex');
    const hard = await parsePskc(file, { psk: wrong });
    expect(hard.tokens).toEqual([]);
    expect(hard.rejected.map((x) => x.serial)).toEqual(['W1']);
    expect((await parsePskc(file, { psk: wrong, validateMac: 'check_fail_soft' })).tokens).toEqual([]);
    await expect(parsePskc(file, {})).rejects.toThrow(/no pre-shared key or password is given/);
  });

  it('reads the example of RFC 6030 figure 6 (pre-shared key, MAC checked)', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<KeyContainer Version="1.0" xmlns="urn:ietf:params:xml:ns:keyprov:pskc"
    xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:xenc="http://www.w3.org/2001/04/xmlenc#">
  <EncryptionKey><ds:KeyName>Pre-shared-key</ds:KeyName></EncryptionKey>
  <MACMethod Algorithm="http://www.w3.org/2000/09/xmldsig#hmac-sha1">
    <MACKey>
      <xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
      <xenc:CipherData><xenc:CipherValue>
        ESIzRFVmd4iZABEiM0RVZgKn6WjLaTC1sbeBMSvIhRejN9vJa2BOlSaMrR7I5wSX
      </xenc:CipherValue></xenc:CipherData>
    </MACKey>
  </MACMethod>
  <KeyPackage>
    <DeviceInfo><Manufacturer>Manufacturer</Manufacturer><SerialNo>987654321</SerialNo></DeviceInfo>
    <CryptoModuleInfo><Id>CM_ID_001</Id></CryptoModuleInfo>
    <Key Id="12345678" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:hotp">
      <Issuer>Issuer</Issuer>
      <AlgorithmParameters><ResponseFormat Length="8" Encoding="DECIMAL"/></AlgorithmParameters>
      <Data>
        <Secret>
          <EncryptedValue>
            <xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
            <xenc:CipherData><xenc:CipherValue>
              AAECAwQFBgcICQoLDA0OD+cIHItlB3Wra1DUpxVvOx2lef1VmNPCMl8jwZqIUqGv
            </xenc:CipherValue></xenc:CipherData>
          </EncryptedValue>
          <ValueMAC>Su+NvtQfmvfJzF6bmQiJqoLRExc=
          </ValueMAC>
        </Secret>
        <Counter><PlainValue>0</PlainValue></Counter>
      </Data>
    </Key>
  </KeyPackage>
</KeyContainer>`;
    const r = await parsePskc(xml, { psk: '12345678901234567890123456789012' });
    expect(r.rejected).toEqual([]);
    expect(r.tokens.map(({ source: _s, ...t }) => t)).toEqual([
      {
        serial: '987654321',
        type: 'hotp',
        otpkey: SEED,
        otplen: 8,
        counter: 0,
        hashlib: 'sha1',
        description: 'Manufacturer',
      },
    ]);
  });

  it('refuses files that are not PSKC', async () => {
    await expect(parsePskc('<a><b></a>')).rejects.toThrow(/not well-formed XML/);
    await expect(parsePskc('<Other/>')).rejects.toThrow(/No KeyContainer found/);
  });
});
