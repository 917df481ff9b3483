// The PKCS#12 bundle of a server-generated key (certificate tokens with genkey=1): the key,
// shrouded with PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC), its certificate and the CA's, with an
// HMAC over the whole protected by the same password. node-forge builds it: pkijs would need the
// ASN.1 plumbing of every bag written here by hand; forge's builder is one call and reads back
// with `openssl pkcs12` (OpenSSL 3, no legacy provider).
import forge from 'node-forge';

/** The DER of a bundle of an RSA key (PKCS#8 PEM) with its certificate chain (PEM, leaf first). */
export function toPkcs12(privateKeyPem: string, chainPem: readonly string[], password: string): Buffer {
  const key = forge.pki.privateKeyFromPem(privateKeyPem);
  const certs: forge.pki.Certificate[] = [];
  for (const pem of chainPem) {
    try {
      certs.push(forge.pki.certificateFromPem(pem));
    } catch {
      // forge reads certificates of RSA keys only: an EC CA's certificate stays out of the bundle.
    }
  }
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, certs, password, {
    algorithm: 'aes256',
    count: 10000,
    saltSize: 16,
    friendlyName: 'authsrv certificate',
    // forge passes its options to encryptPrivateKeyInfo, which reads the PBKDF2 PRF from here.
    prfAlgorithm: 'sha256',
  } as Parameters<typeof forge.pkcs12.toPkcs12Asn1>[3]);
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}
