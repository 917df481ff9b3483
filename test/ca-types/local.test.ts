// The local CA type with the key types it signs with (RSA, EC P-256/P-384, Ed25519, each made by
// Debian's openssl): the certificate of a CSR and of a generated key verifies with `openssl
// verify`, the CRL with `openssl crl -CAfile`; the serial is the one asked for.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { caType } from '../../src/ca-types/index.ts';
import { makeCsr, openssl, selfSignedCa } from '../helpers/test-ca.ts';
import { allowedFilesIn } from '../helpers/user-stores.ts';

const dir = mkdtempSync(join(tmpdir(), 'authsrv-localca-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEYS: Record<string, string[]> = {
  rsa: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
  p256: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  p384: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  ed25519: ['-algorithm', 'ED25519'],
};

describe('the local CA type', () => {
  it('names the password for every wrong one of an encrypted key, whatever OpenSSL reports', async () => {
    const cakey = join(dir, 'enc.key');
    const cacert = join(dir, 'enc.crt');
    selfSignedCa(cakey, cacert, KEYS.p256!, { subject: '/CN=enc CA', days: 30 });
    const encrypted = join(dir, 'enc-aes.key');
    openssl(['pkey', '-in', cakey, '-aes256', '-passout', 'pass:right', '-out', encrypted]);
    // About one wrong password in a few hundred decrypts to garbage with valid padding.
    for (let i = 0; i < 600; i++) {
      await expect(
        caType('local').open({ cacert, cakey: encrypted, password: `wrong-${i}` }, allowedFilesIn(dir)),
      ).rejects.toThrow('cakey: the key can not be decrypted with the given password');
    }
  });

  it.each(Object.keys(KEYS))('signs certificates and CRLs with a %s key', async (kind) => {
    const cakey = join(dir, `${kind}.key`);
    const cacert = join(dir, `${kind}.crt`);
    selfSignedCa(cakey, cacert, KEYS[kind]!, { subject: `/CN=${kind} CA`, days: 30 });
    const ca = await caType('local').open({ cacert, cakey }, allowedFilesIn(dir));
    const now = new Date();
    const serial = Buffer.from('0123456789abcdef', 'hex');
    const issued = await ca.issue({ csr: makeCsr(dir, '/CN=host.example.org', `${kind}-req`) }, now, serial);
    expect(issued.serial).toBe('0123456789ABCDEF');
    const certFile = join(dir, `${kind}-issued.pem`);
    writeFileSync(certFile, issued.certificate);
    expect(openssl(['verify', '-CAfile', cacert, certFile]).trim()).toBe(`${certFile}: OK`);
    const generated = await ca.issue({ generate: { subject: 'CN=alice' } }, now, Buffer.from([0x42]));
    expect(generated.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    writeFileSync(certFile, generated.certificate);
    expect(openssl(['verify', '-CAfile', cacert, certFile]).trim()).toBe(`${certFile}: OK`);
    const crl = await ca.crl([{ serial: issued.serial, revokedAt: now }], now);
    const crlFile = join(dir, `${kind}.crl`);
    writeFileSync(crlFile, crl.pem);
    expect(openssl(['crl', '-in', crlFile, '-CAfile', cacert, '-noout', '-text'])).toContain(
      'Serial Number: 0123456789ABCDEF',
    );
  });

  it('refuses a CSR whose signature does not verify, and a subject that is no DN', async () => {
    const cakey = join(dir, 'p256.key');
    const ca = await caType('local').open({ cacert: join(dir, 'p256.crt'), cakey }, allowedFilesIn(dir));
    const csr = makeCsr(dir, '/CN=x.example.org', 'tamper');
    const der = Buffer.from(csr.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    der[der.length - 5]! ^= 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(ca.issue({ csr: tampered }, new Date(), Buffer.from([1]))).rejects.toThrow(
      /signature of the certificate request is not valid|not a PEM certificate signing request/,
    );
    await expect(
      ca.issue({ generate: { subject: 'no dn here' } }, new Date(), Buffer.from([1])),
    ).rejects.toThrow(/is not a distinguished name|must contain CN/);
  });
});
