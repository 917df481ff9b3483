// Token files for the import tests: a known seed, and PSKC files (RFC 6030) built here with secrets
// encrypted with AES-128-CBC (IV in front) under a pre-shared key or a PBKDF2-derived key, and
// ValueMACs computed with HMAC-SHA1 under the container's MAC key.
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';

export const SEED = '3132333435363738393031323334353637383930';

export function aesEncrypt(key: Buffer, plain: Buffer): Buffer {
  const iv = randomBytes(16);
  const c = createCipheriv('aes-128-cbc', key, iv);
  return Buffer.concat([iv, c.update(plain), c.final()]);
}

export interface PskcKey {
  serial: string;
  type: 'hotp' | 'totp' | string;
  secret: string;
  otplen?: number;
  counter?: number;
  timeStep?: number;
  plain?: boolean;
  /** Write a wrong ValueMAC. */
  badMac?: boolean;
  manufacturer?: string;
  suite?: string;
}

/** A PSKC file; encrypted secrets under `key`, with the MAC key encrypted under it too. */
export function pskcFile(keys: PskcKey[], key?: Buffer, derived?: { salt: Buffer; rounds: number }): string {
  const macKey = randomBytes(20);
  const head = key
    ? `${
        derived
          ? `<EncryptionKey><xenc11:DerivedKey><xenc11:KeyDerivationMethod Algorithm="http://www.rsasecurity.com/rsalabs/pkcs/schemas/pkcs-5v2-0#pbkdf2"><pkcs5:PBKDF2-params><Salt><Specified>${derived.salt.toString('base64')}</Specified></Salt><IterationCount>${derived.rounds}</IterationCount><KeyLength>16</KeyLength></pkcs5:PBKDF2-params></xenc11:KeyDerivationMethod></xenc11:DerivedKey></EncryptionKey>`
          : '<EncryptionKey><ds:KeyName>Pre-shared-key</ds:KeyName></EncryptionKey>'
      }
    <MACMethod Algorithm="http://www.w3.org/2000/09/xmldsig#hmac-sha1"><MACKey>
      <xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
      <xenc:CipherData><xenc:CipherValue>${aesEncrypt(key, macKey).toString('base64')}</xenc:CipherValue></xenc:CipherData>
    </MACKey></MACMethod>`
    : '';
  const packages = keys.map((k) => {
    let secret: string;
    const raw = Buffer.from(k.secret, 'hex');
    if (k.plain || !key) {
      secret = `<PlainValue>${raw.toString('base64')}</PlainValue>`;
    } else {
      const enc = aesEncrypt(key, raw);
      const mac = createHmac('sha1', k.badMac ? randomBytes(20) : macKey)
        .update(enc)
        .digest('base64');
      secret = `<EncryptedValue>
          <xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
          <xenc:CipherData><xenc:CipherValue>${enc.toString('base64')}</xenc:CipherValue></xenc:CipherData>
        </EncryptedValue><ValueMAC>${mac}</ValueMAC>`;
    }
    return `<KeyPackage>
      <DeviceInfo><Manufacturer>${k.manufacturer ?? 'Token Works'}</Manufacturer><SerialNo>${k.serial}</SerialNo></DeviceInfo>
      <Key Id="${k.serial}-id" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:${k.type}">
        <Issuer>Issuer</Issuer>
        <AlgorithmParameters>${k.suite ? `<Suite>${k.suite}</Suite>` : ''}<ResponseFormat Length="${k.otplen ?? 6}" Encoding="DECIMAL"/></AlgorithmParameters>
        <Data>
          <Secret>${secret}</Secret>
          ${k.counter !== undefined ? `<Counter><PlainValue>${k.counter}</PlainValue></Counter>` : ''}
          ${k.timeStep !== undefined ? `<TimeInterval><PlainValue>${k.timeStep}</PlainValue></TimeInterval>` : ''}
        </Data>
      </Key>
    </KeyPackage>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<KeyContainer Version="1.0" xmlns="urn:ietf:params:xml:ns:keyprov:pskc"
  xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"
  xmlns:xenc11="http://www.w3.org/2009/xmlenc11#" xmlns:pkcs5="http://www.rsasecurity.com/rsalabs/pkcs/schemas/pkcs-5v2-0#">
  ${head}
  ${packages.join('\n')}
</KeyContainer>`;
}
