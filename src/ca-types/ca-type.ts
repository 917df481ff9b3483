// The interface every CA type implements (reference 8.5: privacyIDEA's `local` and `microsoft`
// connectors). A type declares its options, checks a configuration when it is saved (files
// readable, key matching certificate, templates parsing), and opens a configuration into a CA that
// signs certificate requests, generates keys and writes revocation lists. Core stores the
// configurations and never asks a type for its name.

/** One option of a CA type, as GET /caconnector/specific/<type> describes it. */
export interface CaOptionSpec {
  /** `password` values are sealed at rest and shown as __CENSORED__. */
  type: 'str' | 'int' | 'password' | 'file';
  required: boolean;
  description: string;
}

/** A certificate template as listed (GET /caconnector/, /system/names/caconnector). */
export interface TemplateView {
  days: number;
  key_usage: string[];
  extended_key_usage: string[];
  subject_required: string[];
}

/** What a CA type reads files through: the allowed-files rule of the server (src/files). */
export interface CaFiles {
  read(path: string, setting: string): Buffer;
  checkSetting(path: string, setting: string): void;
}

/** A request to sign: a PEM CSR, or a subject for which the CA generates the key. */
export type IssueRequest =
  | { template?: string | undefined; csr: string }
  | { template?: string | undefined; generate: { subject: string } };

export interface IssuedCertificate {
  /** PEM of the certificate. */
  certificate: string;
  /** Upper-case hex serial number, as the CRL lists it. */
  serial: string;
  /** PKCS#8 PEM of the generated key, only when the CA generated it. */
  privateKey?: string;
  notAfter: Date;
}

export interface RevokedEntry {
  serial: string;
  revokedAt: Date;
}

export interface Crl {
  pem: string;
  nextUpdate: Date;
}

/** A configuration opened for use. */
export interface OpenedCa {
  templates: Readonly<Record<string, TemplateView>>;
  /** The CA certificate, PEM. */
  caCertificate: string;
  issue(req: IssueRequest, now: Date, serial: Buffer): Promise<IssuedCertificate>;
  /** A CRL listing `revoked`, valid from `now` for the configured period. */
  crl(revoked: readonly RevokedEntry[], now: Date): Promise<Crl>;
  /** Where the CRL is written, or undefined when the configuration names no CRL file. */
  crlPath: string | undefined;
  /** Days before next-update within which the CRL is regenerated (CRL_Overlap_Period). */
  overlapDays: number;
}

export interface CaType {
  readonly name: string;
  readonly description: string;
  readonly options: Readonly<Record<string, CaOptionSpec>>;
  /**
   * Opens a configuration (passwords in clear); throws a ParameterError naming the setting when a
   * file is missing or unreadable, the key does not match the certificate or the templates do not
   * parse. Saving a configuration opens it once, so that nothing broken is stored.
   */
  open(config: Readonly<Record<string, string>>, files: CaFiles): Promise<OpenedCa>;
}
