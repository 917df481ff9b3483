// A CA made by Debian's openssl for the CA connector tests, and the openssl checks of what authsrv
// issues: `openssl verify`, `x509 -text`, `crl -text`, `pkcs12 -info`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  cacert: string;
  cakey: string;
  /** The same key encrypted with `keyPassword`. */
  encryptedKey: string;
  keyPassword: string;
  /** A key of another CA: does not match cacert. */
  otherKey: string;
  templates: string;
  crl: string;
}

export const TEMPLATES_YAML = `vpn:
  days: 30
  key_usage: [digitalSignature, keyEncipherment]
  extended_key_usage: [clientAuth]
  subject_required: [CN]
webserver:
  days: 397
  extensions: server
`;

export function openssl(args: string[], input?: string): string {
  return execFileSync('openssl', args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A key made by `openssl genpkey <keyArgs>` and its self-signed certificate, written to the files given. */
export function selfSignedCa(
  cakey: string,
  cacert: string,
  keyArgs: readonly string[],
  o: { subject: string; days: number; extensions?: readonly string[] },
): void {
  openssl(['genpkey', ...keyArgs, '-out', cakey]);
  const extensions = (o.extensions ?? []).flatMap((e) => ['-addext', e]);
  openssl([
    'req',
    '-x509',
    '-new',
    '-key',
    cakey,
    '-out',
    cacert,
    '-days',
    String(o.days),
    '-subj',
    o.subject,
    ...extensions,
  ]);
}

/** A CA (RSA 2048, CN=authsrv Test CA) in `<base>/ca`, with a templates file. */
export function makeTestCa(base: string): TestCa {
  const dir = join(base, 'ca');
  mkdirSync(dir, { recursive: true });
  const cakey = join(dir, 'cakey.pem');
  const cacert = join(dir, 'cacert.pem');
  selfSignedCa(cakey, cacert, ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'], {
    subject: '/CN=authsrv Test CA/O=authsrv',
    days: 3650,
    extensions: ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'],
  });
  const keyPassword = 'ca-key-p4ss';
  const encryptedKey = join(dir, 'cakey-enc.pem');
  openssl(['pkey', '-in', cakey, '-aes256', '-passout', `pass:${keyPassword}`, '-out', encryptedKey]);
  const otherKey = join(dir, 'other.pem');
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', otherKey]);
  const templates = join(dir, 'templates.yaml');
  writeFileSync(templates, TEMPLATES_YAML);
  return { dir, cacert, cakey, encryptedKey, keyPassword, otherKey, templates, crl: join(dir, 'crl.pem') };
}

/** A CSR (PEM) for a fresh key with the subject, e.g. `/CN=vpn.example.org/O=Example`. */
export function makeCsr(dir: string, subject: string, name = 'req'): string {
  const key = join(dir, `${name}.key`);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', key]);
  return openssl([
    'req',
    '-new',
    '-key',
    key,
    '-subj',
    subject,
    '-addext',
    'subjectAltName=DNS:vpn.example.org',
  ]);
}

/** `openssl verify -CAfile` of a PEM certificate: its output ("…: OK") or the thrown error. */
export function verify(ca: TestCa, certificate: string, name = 'issued'): string {
  const file = join(ca.dir, `${name}.pem`);
  writeFileSync(file, certificate);
  return openssl(['verify', '-CAfile', ca.cacert, file]).trim();
}

export function x509Text(certificate: string): string {
  return openssl(['x509', '-noout', '-text'], certificate);
}

export function crlText(ca: TestCa): string {
  return openssl(['crl', '-in', ca.crl, '-noout', '-text']);
}

/** `openssl pkcs12 -info` of a base64 bundle with the password: the printed certificates and key. */
export function pkcs12Info(ca: TestCa, base64: string, password: string): string {
  const file = join(ca.dir, 'bundle.p12');
  writeFileSync(file, Buffer.from(base64, 'base64'));
  // -info prints the algorithms (MAC, Shrouded Keybag) on standard error, the PEM on standard output.
  const r = spawnSync('openssl', ['pkcs12', '-info', '-in', file, '-passin', `pass:${password}`, '-nodes'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`openssl pkcs12 failed: ${r.stderr}`);
  return `${r.stderr}${r.stdout}`;
}

/** `authsrv caconnector set NAME` of a local connector on this CA with the key file given. */
export function caconnectorSetArgs(ca: TestCa, key: string, name = 'ca1'): string[] {
  return [
    'caconnector',
    'set',
    name,
    '--type',
    'local',
    '--cacert',
    ca.cacert,
    '--cakey',
    key,
    '--templates',
    ca.templates,
  ];
}
