// The token types the fixture holds none of (yubikey, applspec, certificate, radius, 4eyes),
// imported from a copy of the fixture's database with rows added as privacyIDEA writes them
// (key_enc under the key file's slot 0, `password` tokeninfo under slot 1): what each token stores
// afterwards, and that it authenticates through authsrv's validate service where it can here.
import { randomBytes, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRadiusServer } from '../../../../../src/core/radiusserver/index.ts';
import { findToken } from '../../../../../src/core/token/index.ts';
import { check } from '../../../../../src/core/validate/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { PI_FIXTURE } from '../../../../helpers/privacyidea-fixture.ts';
import {
  type ImportedFixture,
  importedFixture,
  piTokenRows,
} from '../../../../helpers/privacyidea-import.ts';
import { buildOtp } from '../../../../helpers/yubico.ts';

const AES_KEY = randomBytes(16);
const PUBLIC_ID = 'cccccccccccb';
const PRIVATE_UID = 'a1b2c3d4e5f6';
/** The stored count: the last accepted counter + 1, as privacyIDEA and authsrv keep it. */
const YUBIKEY_COUNT = 0x0305;
const CERTIFICATE = readFileSync(join(PI_FIXTURE, 'ca', 'cacert.pem'), 'utf8');

const SQL = [
  ...piTokenRows({
    id: 9001,
    serial: 'UBAM0001',
    type: 'yubikey',
    secret: AES_KEY.toString('hex').toUpperCase(),
    otplen: 44,
    count: YUBIKEY_COUNT,
    info: { 'yubikey.prefix': PUBLIC_ID, 'yubikey.tokenid': PRIVATE_UID, tokenkind: 'hardware' },
  }),
  ...piTokenRows({
    id: 9002,
    serial: 'ASPW0001',
    type: 'applspec',
    secret: 'mail-app-password',
    otplen: 17,
    info: { service_id: 'MAIL' },
  }),
  ...piTokenRows({
    id: 9003,
    serial: 'CRT0001',
    type: 'certificate',
    info: {
      CA: 'migca',
      request: '-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n',
      certificate: CERTIFICATE,
      privatekey: { password: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n' },
    },
  }),
  ...piTokenRows({
    id: 9004,
    serial: 'PIRA0001',
    type: 'radius',
    info: {
      'radius.identifier': 'migradius',
      'radius.user': 'bob',
      'radius.local_checkpin': '1',
      tokenkind: 'virtual',
    },
  }),
  ...piTokenRows({
    id: 9005,
    serial: 'PIRA0002',
    type: 'radius',
    info: { 'radius.server': '192.0.2.9:1812', 'radius.secret': { password: 'old' } },
  }),
  ...piTokenRows({
    id: 9006,
    serial: 'PI4E0001',
    type: '4eyes',
    info: { '4eyes': 'migrealm:2,migsql:1', separator: '|', tokenkind: 'virtual' },
  }),
  ...piTokenRows({ id: 9007, serial: 'PI4E0002', type: '4eyes', info: { '4eyes': 'migrealm' } }),
];

describe.each(testDialects())(
  'import privacyidea: yubikey, applspec, certificate, radius, 4eyes (%s)',
  (dialect) => {
    let f: ImportedFixture;
    beforeAll(async () => {
      f = await importedFixture(dialect, { sql: SQL });
    }, 120_000);
    afterAll(async () => f.close());

    async function accepts(serial: string, pass: string): Promise<boolean> {
      return (await check(f.t.rt, { serial, pass, client: '192.0.2.1' })).value;
    }

    async function infoOf(serial: string): Promise<Record<string, string>> {
      const tok = await findToken(f.t.rt, serial);
      expect(tok, serial).toBeDefined();
      return { ...tok!.info };
    }

    it('imports every token of those types it can use and reports the others with the reason', () => {
      const tokens = f.section('tokens');
      expect(tokens.objects).toEqual(
        expect.arrayContaining(['UBAM0001', 'ASPW0001', 'CRT0001', 'PIRA0001', 'PI4E0001']),
      );
      expect(tokens.objects).not.toContain('PIRA0002');
      expect(tokens.objects).not.toContain('PI4E0002');
      expect(tokens.skipped.filter((s) => /^(UBAM|ASPW|CRT|PIRA|PI4E)/.test(s.object))).toEqual([
        { object: 'CRT0001 privatekey', reason: 'authsrv keeps no private key of a certificate token' },
        {
          object: 'PIRA0002',
          reason:
            'it names no RADIUS server definition (radius.identifier): its legacy radius.server settings are not supported',
        },
        { object: 'PI4E0002', reason: 'its tokeninfo 4eyes is not a list of realm:count' },
      ]);
    });

    it('a yubikey keeps its AES key, public id, private uid and counter: a newer OTP is accepted once, an older refused', async () => {
      expect(await infoOf('UBAM0001')).toMatchObject({
        'yubikey.prefix': PUBLIC_ID,
        'yubikey.tokenid': PRIVATE_UID,
      });
      const older = buildOtp(AES_KEY, PUBLIC_ID, { uid: PRIVATE_UID, usage: 3, session: 4 });
      expect(await accepts('UBAM0001', older)).toBe(false);
      const next = buildOtp(AES_KEY, PUBLIC_ID, { uid: PRIVATE_UID, usage: 3, session: 5 });
      expect(await accepts('UBAM0001', next)).toBe(true);
      expect(await accepts('UBAM0001', next)).toBe(false);
      const otherUid = buildOtp(AES_KEY, PUBLIC_ID, { uid: '0102030405ff', usage: 4, session: 0 });
      expect(await accepts('UBAM0001', otherUid)).toBe(false);
    });

    it('an applspec token keeps its password and service', async () => {
      expect(await infoOf('ASPW0001')).toMatchObject({ service_id: 'MAIL' });
      expect(await accepts('ASPW0001', 'mail-app-password')).toBe(true);
      expect(await accepts('ASPW0001', 'mail-app-passwore')).toBe(false);
    });

    it('a certificate token keeps its certificate, request and CA, the serial number read from the certificate', async () => {
      const info = await infoOf('CRT0001');
      expect(info).toMatchObject({
        CA: 'migca',
        certificate: CERTIFICATE,
        certificate_serial: new X509Certificate(CERTIFICATE).serialNumber.toUpperCase(),
      });
      expect(info.request).toContain('BEGIN CERTIFICATE REQUEST');
      expect(info).not.toHaveProperty('privatekey');
    });

    it('a radius token keeps the RADIUS server definition it names (imported too), its user and local PIN check', async () => {
      expect(await infoOf('PIRA0001')).toMatchObject({
        'radius.identifier': 'migradius',
        'radius.user': 'bob',
        'radius.local_checkpin': '1',
      });
      expect(await findRadiusServer(f.t.rt, 'migradius')).toBeDefined();
    });

    it('a 4eyes token keeps its realms and separator: a PIN-only request asks for tokens of those realms', async () => {
      expect(await infoOf('PI4E0001')).toMatchObject({ '4eyes': 'migrealm:2,migsql:1', separator: '|' });
      const r = await check(f.t.rt, { serial: 'PI4E0001', pass: '', client: '192.0.2.1' });
      expect(r.value).toBe(false);
      expect(r.detail?.message).toBe(
        'Please authenticate with another token from either realm: migrealm, migsql.',
      );
    });
  },
);
