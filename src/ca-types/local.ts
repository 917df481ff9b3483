// The `local` CA type (reference 8.5, privacyIDEA's localca): a CA certificate and key in files,
// signing in-process with @peculiar/x509 on Node's WebCrypto (no openssl on the request path).
// privacyIDEA's keys of an exported configuration are accepted: openssl.cnf, WorkingDir, CSRDir
// and CertificateDir are kept for that, and not used (authsrv reads no openssl.cnf and keeps no
// request or certificate files: issued certificates live in the token).
import 'reflect-metadata';
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  type webcrypto,
} from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import * as x509 from '@peculiar/x509';
import { ParameterError } from '../errors.ts';
import type {
  CaFiles,
  CaType,
  Crl,
  IssuedCertificate,
  IssueRequest,
  OpenedCa,
  RevokedEntry,
  TemplateView,
} from './ca-type.ts';
import { DEFAULT_TEMPLATE, EXTENDED_KEY_USAGES, parseTemplates } from './templates.ts';

x509.cryptoProvider.set(globalThis.crypto);

const DEFAULT_CRL_VALIDITY_DAYS = 30;
const DEFAULT_CRL_OVERLAP_DAYS = 2;
const DAY_MS = 86_400_000;
const GENERATED_RSA_BITS = 2048;
const MAX_CSR_CHARS = 64 * 1024;
const SUBJECT_ALT_NAME = '2.5.29.17';

const CURVES: Readonly<Record<string, { namedCurve: string; hash: string }>> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' },
};

/** The WebCrypto signing algorithm for a CA key. */
type Wc = typeof webcrypto;
type ImportAlgorithm = Parameters<KeyObject['toCryptoKey']>[0];
type SignAlgorithm = Parameters<Wc['subtle']['sign']>[0];

function signingAlgorithmOf(key: KeyObject): { import: ImportAlgorithm; sign: SignAlgorithm } {
  if (key.asymmetricKeyType === 'rsa') {
    const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { import: alg, sign: alg };
  }
  if (key.asymmetricKeyType === 'ec') {
    const curve = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (curve)
      return {
        import: { name: 'ECDSA', namedCurve: curve.namedCurve },
        sign: { name: 'ECDSA', hash: curve.hash },
      };
  }
  if (key.asymmetricKeyType === 'ed25519') return { import: { name: 'Ed25519' }, sign: { name: 'Ed25519' } };
  throw new ParameterError(
    `cakey: the key type ${key.asymmetricKeyType ?? 'unknown'} is not supported: use RSA, EC (P-256, P-384, P-521) or Ed25519`,
  );
}

function text(files: CaFiles, config: Readonly<Record<string, string>>, setting: string): string {
  const path = config[setting];
  if (!path) throw ParameterError.missing(setting);
  return files.read(path, setting).toString('utf8');
}

function loadKey(pem: string, password: string | undefined): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem', ...(password ? { passphrase: password } : {}) });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    // A wrong password usually fails the decryption, but now and then decrypts to garbage with
    // valid padding, which OpenSSL then reports as a malformed key: an encrypted PEM's failure is
    // the password's whatever OpenSSL calls it.
    const encrypted = /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(pem);
    if (
      encrypted ||
      /PASSPHRASE|BAD_DECRYPT|INTERRUPTED_OR_CANCELLED/i.test(`${code} ${(e as Error).message}`)
    )
      throw new ParameterError(
        password
          ? 'cakey: the key can not be decrypted with the given password'
          : 'cakey: the key is protected by a password: give it as password',
      );
    throw new ParameterError('cakey: the file holds no private key in PEM form');
  }
}

function loadCertificate(pem: string): x509.X509Certificate {
  try {
    return new x509.X509Certificate(pem);
  } catch {
    throw new ParameterError('cacert: the file holds no certificate in PEM form');
  }
}

function days(config: Readonly<Record<string, string>>, key: string, fallback: number): number {
  const v = config[key];
  if (v === undefined || v.trim() === '') return fallback;
  if (!/^\s*\d+\s*$/.test(v) || Number(v) < 1 || Number(v) > 3650)
    throw new ParameterError(`${key} must be a whole number of days from 1 to 3650, not '${v}'`);
  return Number(v);
}

/** The CSR of a request, with its signature checked. */
async function csrOf(pem: string): Promise<x509.Pkcs10CertificateRequest> {
  if (pem.length > MAX_CSR_CHARS) throw new ParameterError('request: the certificate request is too long');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(pem.trim());
  } catch {
    throw new ParameterError('request: not a PEM certificate signing request (PKCS#10)');
  }
  let valid = false;
  try {
    valid = await csr.verify();
  } catch {
    valid = false;
  }
  if (!valid) throw new ParameterError('request: the signature of the certificate request is not valid');
  return csr;
}

/** The short names of a DN's attributes (CN, O, …). */
function dnAttributes(name: x509.Name): Set<string> {
  const out = new Set<string>();
  for (const rdn of name.toJSON()) for (const k of Object.keys(rdn)) out.add(k);
  return out;
}

function keyUsageFlags(names: readonly string[]): number {
  let flags = 0;
  for (const n of names) flags |= x509.KeyUsageFlags[n as keyof typeof x509.KeyUsageFlags];
  return flags;
}

function templateFor(
  templates: Readonly<Record<string, TemplateView>>,
  name: string | undefined,
): TemplateView {
  if (name) {
    const t = templates[name];
    if (!t) throw new ParameterError(`The template '${name}' does not exist in this CA connector`);
    return t;
  }
  return DEFAULT_TEMPLATE;
}

/** The CRL file must be allowed and its directory must exist, so that a revocation can write it. */
function checkCrlPath(path: string, files: CaFiles): void {
  files.checkSetting(path, 'CRL');
  let isDir = false;
  try {
    isDir = statSync(dirname(path)).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new ParameterError(`CRL: the directory ${dirname(path)} does not exist`);
}

/** A local CA's configuration, opened. */
interface LocalCa {
  caCert: x509.X509Certificate;
  signingKey: webcrypto.CryptoKey;
  signAlgorithm: SignAlgorithm;
  templates: Readonly<Record<string, TemplateView>>;
  authorityKeyId: x509.Extension;
  crlValidity: number;
}

/** The subject, public key and (generated) private key of a request, SAN copied from a CSR. */
async function requestedKey(req: IssueRequest): Promise<{
  subject: string;
  publicKey: x509.PublicKey | webcrypto.CryptoKey;
  privateKey?: string;
  extensions: x509.Extension[];
}> {
  if ('csr' in req) {
    const csr = await csrOf(req.csr);
    const san = csr.getExtension(SUBJECT_ALT_NAME);
    return { subject: csr.subject, publicKey: csr.publicKey, extensions: san ? [san] : [] };
  }
  const pair = generateKeyPairSync('rsa', { modulusLength: GENERATED_RSA_BITS });
  return {
    subject: req.generate.subject,
    publicKey: pair.publicKey.toCryptoKey({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify']),
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    extensions: [],
  };
}

function subjectName(subject: string, template: TemplateView, templateName: string | undefined): x509.Name {
  let name: x509.Name;
  try {
    name = new x509.Name(subject);
  } catch {
    throw new ParameterError(`The subject '${subject}' is not a distinguished name`);
  }
  const present = dnAttributes(name);
  const missing = template.subject_required.filter((a) => !present.has(a));
  if (missing.length > 0)
    throw new ParameterError(
      `The subject must contain ${missing.join(', ')} (template ${templateName ?? 'default'})`,
    );
  return name;
}

function templateExtensions(template: TemplateView): x509.Extension[] {
  const out: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (template.key_usage.length > 0)
    out.push(new x509.KeyUsagesExtension(keyUsageFlags(template.key_usage), true));
  if (template.extended_key_usage.length > 0)
    out.push(
      new x509.ExtendedKeyUsageExtension(
        template.extended_key_usage.map((k) => EXTENDED_KEY_USAGES[k] ?? k),
        false,
      ),
    );
  return out;
}

async function issueBy(
  ca: LocalCa,
  req: IssueRequest,
  now: Date,
  serial: Buffer,
): Promise<IssuedCertificate> {
  const template = templateFor(ca.templates, req.template);
  const key = await requestedKey(req);
  const name = subjectName(key.subject, template, req.template);
  const extensions = [
    ...key.extensions,
    ...templateExtensions(template),
    await x509.SubjectKeyIdentifierExtension.create(key.publicKey, false),
    ca.authorityKeyId,
  ];
  // Backdated a minute, so that a client whose clock is slightly behind accepts it at once.
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + template.days * DAY_MS);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    issuer: ca.caCert.subjectName,
    subject: name,
    notBefore,
    notAfter,
    publicKey: key.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: ca.signAlgorithm,
    extensions,
  });
  return {
    certificate: cert.toString('pem'),
    serial: serial.toString('hex').toUpperCase(),
    notAfter,
    ...(key.privateKey ? { privateKey: key.privateKey } : {}),
  };
}

async function crlBy(ca: LocalCa, revoked: readonly RevokedEntry[], now: Date): Promise<Crl> {
  const nextUpdate = new Date(now.getTime() + ca.crlValidity * DAY_MS);
  const generated = await x509.X509CrlGenerator.create({
    issuer: ca.caCert.subjectName,
    thisUpdate: now,
    nextUpdate,
    signingKey: ca.signingKey,
    signingAlgorithm: ca.signAlgorithm,
    extensions: [ca.authorityKeyId],
    entries: revoked.map((r) => ({ serialNumber: r.serial, revocationDate: r.revokedAt })),
  });
  // OpenSSL (and RFC 7468) label a CRL `X509 CRL`; the library's own PEM says `CRL`.
  return { pem: x509.PemConverter.encode(generated.rawData, 'X509 CRL'), nextUpdate };
}

async function openLocal(config: Readonly<Record<string, string>>, files: CaFiles): Promise<OpenedCa> {
  const caCert = loadCertificate(text(files, config, 'cacert'));
  const caKey = loadKey(text(files, config, 'cakey'), config.password);
  const spki = createPublicKey(caKey).export({ type: 'spki', format: 'der' });
  if (!Buffer.from(caCert.publicKey.rawData).equals(spki))
    throw new ParameterError('cakey: the key does not belong to the certificate cacert');
  const algorithm = signingAlgorithmOf(caKey);
  const ca: LocalCa = {
    caCert,
    signingKey: caKey.toCryptoKey(algorithm.import, false, ['sign']),
    signAlgorithm: algorithm.sign,
    templates: config.templates ? parseTemplates(text(files, config, 'templates')) : {},
    authorityKeyId: await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
    crlValidity: days(config, 'CRL_Validity_Period', DEFAULT_CRL_VALIDITY_DAYS),
  };
  const overlapDays = days(config, 'CRL_Overlap_Period', DEFAULT_CRL_OVERLAP_DAYS);
  if (config.CRL) checkCrlPath(config.CRL, files);
  return {
    templates: ca.templates,
    caCertificate: caCert.toString('pem'),
    issue: (req, now, serial) => issueBy(ca, req, now, serial),
    crl: (revoked, now) => crlBy(ca, revoked, now),
    crlPath: config.CRL || undefined,
    overlapDays,
  };
}

export const localCa: CaType = {
  name: 'local',
  description: 'A CA whose certificate and key are files of this server',
  options: {
    cacert: { type: 'file', required: true, description: 'The CA certificate (PEM)' },
    cakey: { type: 'file', required: true, description: 'The CA private key (PEM, optionally encrypted)' },
    password: { type: 'password', required: false, description: 'The password of an encrypted cakey' },
    templates: { type: 'file', required: false, description: 'YAML file of certificate templates' },
    CRL: {
      type: 'file',
      required: false,
      description: 'Where the certificate revocation list is written (PEM)',
    },
    CRL_Validity_Period: { type: 'int', required: false, description: 'Days a CRL is valid (default 30)' },
    CRL_Overlap_Period: {
      type: 'int',
      required: false,
      description: 'Days before its next update that a CRL is regenerated (default 2)',
    },
    'openssl.cnf': {
      type: 'file',
      required: false,
      description: 'privacyIDEA setting, accepted and not used',
    },
    WorkingDir: { type: 'str', required: false, description: 'privacyIDEA setting, accepted and not used' },
    CSRDir: { type: 'str', required: false, description: 'privacyIDEA setting, accepted and not used' },
    CertificateDir: {
      type: 'str',
      required: false,
      description: 'privacyIDEA setting, accepted and not used',
    },
  },
  open: openLocal,
};
