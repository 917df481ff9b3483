// Token file import (reference 3.5): the parsers of OATH CSV, PSKC (RFC 6030), Yubico CSV and
// Aladdin XML, and the service that stores the tokens. PSKC files are built here: secrets
// encrypted with AES-128-CBC (IV in front) under a pre-shared key or a PBKDF2-derived key, and
// ValueMACs computed with HMAC-SHA1 under the container's MAC key.
import { createCipheriv, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { closeUserStores } from '../../src/core/directory/user-stores.ts';
import { setPolicy } from '../../src/core/policy/policy.ts';
import { setRealm } from '../../src/core/realm/realm.ts';
import { saveResolver } from '../../src/core/resolver/resolver.ts';
import { parseAladdinXml } from '../../src/core/token/import/aladdin-xml.ts';
import { ANALYZE_AFTER, IMPORT_BATCH, importTokens } from '../../src/core/token/import/import.ts';
import { parseOathCsv } from '../../src/core/token/import/oathcsv.ts';
import { parsePskc } from '../../src/core/token/import/pskc.ts';
import { parseTokenFile } from '../../src/core/token/import/token-file.ts';
import { parseYubikeyCsv } from '../../src/core/token/import/yubikeycsv.ts';
import { findToken, tokenState } from '../../src/core/token/store.ts';
import { ParameterError, PolicyError, TokenAdminError } from '../../src/errors.ts';
import type { Store } from '../../src/store/database.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { writePasswdFile } from '../helpers/user-stores.ts';

const SEED = '3132333435363738393031323334353637383930';

function aesEncrypt(key: Buffer, plain: Buffer): Buffer {
  const iv = randomBytes(16);
  const c = createCipheriv('aes-128-cbc', key, iv);
  return Buffer.concat([iv, c.update(plain), c.final()]);
}

interface PskcKey {
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
function pskcFile(keys: PskcKey[], key?: Buffer, derived?: { salt: Buffer; rounds: number }): string {
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

describe('Aladdin XML', () => {
  it('reads serial, seed and product name; the hashlib follows the seed length', () => {
    const r = parseAladdinXml(`<Tokens>
      <Token serial="00040008CFA5"><ProductName>Safeword Alpine</ProductName>
        <Applications><Application ConnectorID="{x}"><Seed>${SEED}</Seed><MovingFactor>1</MovingFactor></Application></Applications>
      </Token>
      <Token serial="S256"><Applications><Application><Seed>${'ab'.repeat(32)}</Seed></Application></Applications></Token>
      <Token serial="NOSEED"/>
    </Tokens>`);
    expect(r.tokens.map((t) => [t.serial, t.type, t.hashlib, t.description])).toEqual([
      ['00040008CFA5', 'hotp', 'sha1', 'Safeword Alpine'],
      ['S256', 'hotp', 'sha256', undefined],
    ]);
    expect(r.rejected).toEqual([{ serial: 'NOSEED', source: 'Token 3', reason: "no element 'Seed'" }]);
    expect(() => parseAladdinXml('<Other/>')).toThrow(/no toplevel element Tokens/);
  });
});

describe('PSKC', () => {
  const psk = randomBytes(16);

  it('reads plain secrets with counter, time step, length and suite', () => {
    const r = parsePskc(
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

  it('decrypts secrets with the pre-shared key and checks their MAC', () => {
    const file = pskcFile(
      [
        { serial: 'E1', type: 'hotp', secret: SEED, counter: 3 },
        { serial: 'E2', type: 'totp', secret: 'ab'.repeat(20), timeStep: 30 },
      ],
      psk,
    );
    const r = parsePskc(file, { psk: psk.toString('hex') });
    expect(r.rejected).toEqual([]);
    expect(r.tokens.map((t) => [t.serial, t.otpkey, t.counter])).toEqual([
      ['E1', SEED, 3],
      ['E2', 'ab'.repeat(20), undefined],
    ]);
  });

  it('derives the key from a password (PBKDF2)', () => {
    const salt = randomBytes(8);
    const key = pbkdf2Sync('qwerty', salt, 1000, 16, 'sha1');
    const file = pskcFile([{ serial: 'D1', type: 'hotp', secret: SEED }], key, { salt, rounds: 1000 });
    expect(parsePskc(file, { password: 'qwerty' }).tokens.map((t) => t.otpkey)).toEqual([SEED]);
    expect(() => parsePskc(file, {})).toThrow(/no password is given/);
    // A wrong password gives a wrong key: every MAC is wrong.
    expect(parsePskc(file, { password: 'wrong' }).tokens).toEqual([]);
  });

  it('handles wrong MACs as pskcValidateMAC says', () => {
    const file = pskcFile(
      [
        { serial: 'M1', type: 'hotp', secret: SEED },
        { serial: 'M2', type: 'hotp', secret: SEED, badMac: true },
      ],
      psk,
    );
    const hex = psk.toString('hex');
    const hard = parsePskc(file, { psk: hex });
    expect(hard.tokens).toEqual([]);
    expect(hard.rejected.map((x) => x.serial).sort()).toEqual(['M1', 'M2']);
    const soft = parsePskc(file, { psk: hex, validateMac: 'check_fail_soft' });
    expect(soft.tokens.map((t) => t.serial)).toEqual(['M1']);
    expect(soft.rejected).toEqual([
      { serial: 'M2', source: 'KeyPackage 2', reason: 'the MAC of the secret is wrong' },
    ]);
    expect(parsePskc(file, { psk: hex, validateMac: 'no_check' }).tokens.map((t) => t.serial)).toEqual([
      'M1',
      'M2',
    ]);
  });

  it('with a wrong pre-shared key: nothing imported (MAC checks) or an error (no_check)', () => {
    const file = pskcFile([{ serial: 'W1', type: 'hotp', secret: SEED }], psk);
    const wrong = Buffer.alloc(16, 7).toString('hex');
    const hard = parsePskc(file, { psk: wrong });
    expect(hard.tokens).toEqual([]);
    expect(hard.rejected.map((x) => x.serial)).toEqual(['W1']);
    expect(parsePskc(file, { psk: wrong, validateMac: 'check_fail_soft' }).tokens).toEqual([]);
    expect(() => parsePskc(file, {})).toThrow(/no pre-shared key or password is given/);
  });

  it('reads the example of RFC 6030 figure 6 (pre-shared key, MAC checked)', () => {
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
    const r = parsePskc(xml, { psk: '12345678901234567890123456789012' });
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

  it('refuses files that are not PSKC', () => {
    expect(() => parsePskc('<a><b></a>')).toThrow(/not well-formed XML/);
    expect(() => parsePskc('<Other/>')).toThrow(/No KeyContainer found/);
  });
});

describe('file checks', () => {
  it('empty file → ERR905, unknown type → ERR301, bad psk → ERR301', () => {
    const empty = () => parseTokenFile({ type: 'oathcsv', content: '  \n' });
    expect(empty).toThrow(ParameterError);
    expect(empty).toThrow('Error loading token file. File empty!');
    const unknown = () => parseTokenFile({ type: 'csv', content: 'x' });
    expect(unknown).toThrow(TokenAdminError);
    expect(unknown).toThrow(
      "Unknown file type: 'csv'. Supported file types are: aladdin-xml, oathcsv, OATH CSV, yubikeycsv, Yubikey CSV, pskc",
    );
    expect(() => parseTokenFile({ type: 'pskc', content: 'x', psk: 'abc' })).toThrow(/32 characters long/);
  });
});

describe.each(testDialects())('importTokens on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
    const file = await writePasswdFile(t.dataDir, 'passwd', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
    ]);
    await saveResolver(t.ctx, 'res1', { type: 'passwdresolver', Filename: file });
    await setRealm(t.ctx, 'realm1', ['res1'], {});
    await setRealm(t.ctx, 'realm2', ['res1'], {});
  });
  afterEach(async () => {
    if (t) await closeUserStores(t.rt);
    await t?.close();
  });

  const oath = `# version: 2\nalice, res1, realm1, IMP1, ${SEED}, hotp, 6, 4\n, , , IMP2, ${SEED}, totp, 8, 60\nnobody, res1, realm1, IMP3, ${SEED}\n, , , BAD, zz\n`;

  it('stores hardware tokens with their realms, owners, counters and tokeninfo', async () => {
    const progress: number[] = [];
    const r = await importTokens(t.ctx, {
      type: 'OATH CSV',
      content: oath,
      tokenrealms: ['realm2'],
      onProgress: (done) => progress.push(done),
    });
    expect(r.n_imported).toBe(3);
    expect(r.n_not_imported).toBe(1);
    expect(r.notImported).toEqual([
      { serial: 'BAD', source: 'line 5', reason: 'the key is not hexadecimal' },
    ]);
    expect(progress).toEqual([1, 2, 3]);
    const imp1 = (await findToken(t.rt, 'IMP1'))!;
    expect(imp1.row).toMatchObject({
      tokentype: 'hotp',
      description: 'imported',
      otplen: 6,
      count: 4,
      active: 1,
    });
    expect(imp1.info).toMatchObject({ tokenkind: 'hardware', hashlib: 'sha1' });
    expect(imp1.owner).toMatchObject({ resolver: 'res1', realm: 'realm1' });
    expect(imp1.realms).toEqual(['realm1', 'realm2']);
    expect(imp1.row.key_enc).not.toContain(SEED);
    // The imported seed gives the OTP values of the counter stored.
    const state = tokenState(t.rt, imp1);
    expect(imp1.type.checkOtp(state, hotpValue(Buffer.from(SEED, 'hex'), 3, 6), t.rt.clock())).toBeNull();
    expect(imp1.type.checkOtp(state, hotpValue(Buffer.from(SEED, 'hex'), 5, 6), t.rt.clock())).toMatchObject({
      counter: 5,
    });
    const imp2 = (await findToken(t.rt, 'IMP2'))!;
    expect(imp2.row).toMatchObject({ tokentype: 'totp', otplen: 8 });
    expect(imp2.info).toMatchObject({ tokenkind: 'hardware', timeStep: '60', timeShift: '0' });
    expect(imp2.owner).toBeUndefined();
    // An unknown user: imported without owner, as privacyIDEA does.
    expect((await findToken(t.rt, 'IMP3'))!.owner).toBeUndefined();
  });

  it('does not overwrite existing tokens or import a serial twice', async () => {
    await importTokens(t.ctx, { type: 'oathcsv', content: `X1, ${SEED}\n` });
    const r = await importTokens(t.ctx, {
      type: 'oathcsv',
      content: `X1, ${'ab'.repeat(20)}\nX2, ${SEED}\nX2, ${SEED}\n`,
    });
    expect(r.imported).toEqual(['X2']);
    expect(r.notImported.map((n) => n.reason)).toEqual([
      'a token with the serial X1 exists already',
      'the serial X2 appears twice in the file',
    ]);
    const x1 = (await findToken(t.rt, 'X1'))!;
    expect(tokenState(t.rt, x1).key().toString('hex')).toBe(SEED);
  });

  it('imports Yubico OTP lines as yubikey tokens (otplen = 32 + public id)', async () => {
    const r = await importTokens(t.ctx, {
      type: 'yubikeycsv',
      content: '508327,cccccccccccc,83cebdfb7b93,a47c5bf9c152202f577be6721c0113af,,2013-12-12T08:43:17,\n',
    });
    expect(r).toMatchObject({ n_imported: 1, n_not_imported: 0 });
    expect((await findToken(t.rt, 'UBAM508327_X'))!.row).toMatchObject({ tokentype: 'yubikey', otplen: 44 });
  });

  it('imports an encrypted PSKC file; unknown realms are an error', async () => {
    const psk = randomBytes(16);
    const file = pskcFile([{ serial: 'PS1', type: 'hotp', secret: SEED, counter: 2 }], psk);
    const r = await importTokens(t.ctx, { type: 'pskc', content: file, psk: psk.toString('hex') });
    expect(r).toMatchObject({ n_imported: 1, n_not_imported: 0 });
    expect((await findToken(t.rt, 'PS1'))!.row).toMatchObject({ count: 2, description: 'Token Works' });
    await expect(
      importTokens(t.ctx, { type: 'oathcsv', content: `Y, ${SEED}`, tokenrealms: ['nope'] }),
    ).rejects.toThrow("The realm 'nope' does not exist.");
  });

  it('needs importtokens for every target realm', async () => {
    const admin = withCaller(t.rt, {
      role: 'admin',
      username: 'helper',
      realm: '',
      authtype: 'password',
      client: '',
    });
    await setPolicy(t.ctx, 'a1', { scope: 'admin', action: 'importtokens', realm: 'realm1' });
    await setPolicy(t.ctx, 'a2', { scope: 'admin', action: 'tokenlist' });
    const content = `R1, ${SEED}\n`;
    expect(
      (await importTokens(admin, { type: 'oathcsv', content, tokenrealms: ['realm1'] })).n_imported,
    ).toBe(1);
    await expect(
      importTokens(admin, { type: 'oathcsv', content, tokenrealms: ['realm1', 'realm2'] }),
    ).rejects.toThrow(PolicyError);
    await expect(importTokens(admin, { type: 'oathcsv', content })).rejects.toThrow(PolicyError);
    // The operator is never restricted.
    expect(
      (await importTokens(withCaller(t.rt, localOperator()), { type: 'oathcsv', content: `R2, ${SEED}` }))
        .n_imported,
    ).toBe(1);
  });

  /** A key of its own per token, so that a mixed-up seed shows. */
  const keyOf = (i: number) => i.toString(16).padStart(40, '0');

  it('writes files larger than one batch: duplicates in the file and in the store, bad lines, owners', async () => {
    // Two serials in the store already, one of them in the second batch.
    await importTokens(t.ctx, { type: 'oathcsv', content: `B0003, ${SEED}\nB0700, ${SEED}\n` });
    const n = 2 * IMPORT_BATCH + 7;
    const lines = ['# version: 2'];
    for (let i = 0; i < n; i++) {
      const owner = i % 3 === 0 ? 'alice, res1, realm1' : ', , ';
      lines.push(
        `${owner}, B${String(i).padStart(4, '0')}, ${keyOf(i)}, ${i % 2 ? 'totp, 8, 60' : `hotp, 6, ${i}`}`,
      );
    }
    lines.push(`, , , B0001, ${SEED}`); // twice in the file, far apart
    lines.splice(IMPORT_BATCH + 1, 0, `, , , B0999, ${SEED}`); // before its own line, in another batch
    lines.splice(10, 0, ', , , BADKEY, xyz');
    const progress: number[] = [];
    const r = await importTokens(t.ctx, {
      type: 'oathcsv',
      content: `${lines.join('\n')}\n`,
      tokenrealms: ['realm2'],
      onProgress: (done, total) => progress.push(done, total),
    });
    const total = n + 2;
    expect(progress.length).toBe(2 * total);
    expect(progress.slice(-2)).toEqual([total, total]);
    expect(progress.filter((_, i) => i % 2 === 0)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(r.notImported).toEqual([
      { serial: 'BADKEY', source: 'line 11', reason: 'the key is not hexadecimal' },
      { serial: 'B0003', source: 'line 5', reason: 'a token with the serial B0003 exists already' },
      { serial: 'B0700', source: 'line 704', reason: 'a token with the serial B0700 exists already' },
      { serial: 'B0999', source: 'line 1003', reason: 'the serial B0999 appears twice in the file' },
      { serial: 'B0001', source: `line ${n + 4}`, reason: 'the serial B0001 appears twice in the file' },
    ]);
    expect(r).toMatchObject({ n_imported: n - 2, n_not_imported: 5 });
    // In file order: B0999 from its first (early) line.
    expect(r.imported.indexOf('B0999')).toBe(IMPORT_BATCH - 1);
    expect(r.imported.filter((s) => s !== 'B0999')).toEqual(
      Array.from({ length: n }, (_, i) => `B${String(i).padStart(4, '0')}`).filter(
        (s) => s !== 'B0003' && s !== 'B0700' && s !== 'B0999',
      ),
    );
    const rows = await t.rt.store.db.selectFrom('token').select('id').execute();
    expect(rows.length).toBe(n);
    const counts = async (table: 'tokeninfo' | 'tokenrealm' | 'tokenowner') =>
      Number(
        (
          await t.rt.store.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    // Owned: every third line, but B0003 was there already and B0999 came from its line without owner.
    const owned = Math.ceil(n / 3) - 2;
    expect(await counts('tokenowner')).toBe(owned);
    // realm2 for every imported token, realm1 too for the owned ones.
    expect(await counts('tokenrealm')).toBe(n - 2 + owned);
    for (const i of [0, 1, 498, 499, 500, 501, 1000, n - 1]) {
      const tok = (await findToken(t.rt, `B${String(i).padStart(4, '0')}`))!;
      expect(tokenState(t.rt, tok).key().toString('hex')).toBe(keyOf(i));
      expect(tok.info).toMatchObject(
        i % 2
          ? { tokenkind: 'hardware', timeStep: '60', timeShift: '0' }
          : { tokenkind: 'hardware', hashlib: 'sha1' },
      );
      expect(tok.row).toMatchObject(
        i % 2 ? { tokentype: 'totp', otplen: 8 } : { tokentype: 'hotp', count: i },
      );
      expect(tok.realms).toEqual(i % 3 === 0 ? ['realm1', 'realm2'] : ['realm2']);
      expect(tok.owner?.realm).toBe(i % 3 === 0 ? 'realm1' : undefined);
    }
    const b999 = (await findToken(t.rt, 'B0999'))!;
    expect(tokenState(t.rt, b999).key().toString('hex')).toBe(SEED);
    expect(b999.row).toMatchObject({ tokentype: 'hotp', count: 0 });
    expect(b999.realms).toEqual(['realm2']);
    expect(b999.owner).toBeUndefined();
    // The tokens that were there keep their key.
    expect(
      tokenState(t.rt, (await findToken(t.rt, 'B0700'))!)
        .key()
        .toString('hex'),
    ).toBe(SEED);
    // At least ANALYZE_AFTER tokens: the planner's statistics of the token tables were refreshed.
    expect(r.n_imported).toBeGreaterThanOrEqual(ANALYZE_AFTER);
    if (dialect === 'postgres') {
      const analysed = await sql<{ relname: string }>`select relname from pg_stat_user_tables
        where relname in ('token', 'tokeninfo', 'tokenrealm', 'tokenowner') and last_analyze is not null`.execute(
        t.rt.store.db,
      );
      expect(analysed.rows.map((row) => row.relname).sort()).toEqual([
        'token',
        'tokeninfo',
        'tokenowner',
        'tokenrealm',
      ]);
    }
  });

  it('compares serials exactly, as a single token lookup does', async () => {
    await importTokens(t.ctx, { type: 'oathcsv', content: `CASE1, ${SEED}\n` });
    expect(await findToken(t.rt, 'case1')).toBeUndefined();
    const r = await importTokens(t.ctx, { type: 'oathcsv', content: `case1, ${SEED}\nCASE1, ${SEED}\n` });
    expect(r.imported).toEqual(['case1']);
    expect(r.notImported.map((n) => n.reason)).toEqual(['a token with the serial CASE1 exists already']);
  });

  /**
   * The context of the test runtime whose database calls `before(n)` ahead of its n-th transaction
   * (counted from 1): a concurrent writer, or a failure of that one transaction.
   */
  function interceptTransactions(before: (n: number) => Promise<void>): Context {
    const db = t.rt.store.db;
    let n = 0;
    const proxy = new Proxy(db, {
      get(target, prop) {
        if (prop === 'transaction') {
          return () => ({
            execute: async <T>(fn: (trx: unknown) => Promise<T>) => {
              await before(++n);
              return target.transaction().execute(fn as never) as Promise<T>;
            },
          });
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const store: Store = { ...t.rt.store, db: proxy };
    return { ...t.ctx, store };
  }

  it('a token failing in the middle of a batch: the batch is written token by token, the others are imported', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20; i++) lines.push(`M${i}, ${keyOf(i)}, hotp, 6`);
    const ctx = interceptTransactions(async (n) => {
      // After the existence check, before the batch is written, another import stores M7.
      if (n === 1) await importTokens(t.ctx, { type: 'oathcsv', content: `M7, ${SEED}` });
      // Written one by one afterwards (M7 is found and skipped): the 13th of those, M13, fails.
      if (n === 1 + 13) throw new Error('the disk is full');
    });
    const r = await importTokens(ctx, {
      type: 'oathcsv',
      content: lines.join('\n'),
      tokenrealms: ['realm1'],
    });
    expect(r.notImported).toEqual([
      { serial: 'M7', source: 'line 8', reason: 'a token with the serial M7 exists already' },
      { serial: 'M13', source: 'line 14', reason: 'could not be stored: the disk is full' },
    ]);
    expect(r.imported).toEqual(lines.map((_, i) => `M${i}`).filter((s) => s !== 'M7' && s !== 'M13'));
    expect(await findToken(t.rt, 'M13')).toBeUndefined();
    // Nothing of the failed batch stays: M7 is the other import's, without realm.
    const m7 = (await findToken(t.rt, 'M7'))!;
    expect(tokenState(t.rt, m7).key().toString('hex')).toBe(SEED);
    expect(m7.realms).toEqual([]);
    expect(Object.keys(m7.info).sort()).toEqual(['creation_date', 'hashlib', 'tokenkind']);
    const m19 = (await findToken(t.rt, 'M19'))!;
    expect(tokenState(t.rt, m19).key().toString('hex')).toBe(keyOf(19));
    expect(m19.realms).toEqual(['realm1']);
    const infos = await t.rt.store.db.selectFrom('tokeninfo').select('token_id').execute();
    expect(infos.length).toBe(3 * 19);
  });
});
