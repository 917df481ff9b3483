// The TLS settings of an LDAP resolver (TLS_VERIFY, TLS_CA_FILE, CACERTIFICATE, TLS_VERSION) as
// Node's TLS options, for ldaps:// and StartTLS alike.
//
// TLS_VERSION: privacyIDEA stores Python's ssl protocol numbers: 2 (its default, PROTOCOL_TLS,
// which privacyIDEA restricts to TLS 1.3), 3 = TLS 1.0, 4 = TLS 1.1, 5 = TLS 1.2, each meaning
// exactly that version. `1.0`…`1.3` (or `TLSv1.2` …) mean "at least this version". Empty: Node's
// defaults (TLS 1.2 or 1.3). TLS_VERIFY defaults to true (fail closed); the server certificate is
// checked against TLS_CA_FILE and/or CACERTIFICATE, or the system CAs when neither is given.
import type tls from 'node:tls';
import { ParameterError } from '../../errors.ts';
import type { AllowedFiles } from '../../files/index.ts';
import { settingBool, settingText } from '../settings.ts';
import type { ResolverSettings } from '../user-store.ts';

const EXACT_VERSION: Record<string, tls.SecureVersion> = {
  '2': 'TLSv1.3',
  '3': 'TLSv1',
  '4': 'TLSv1.1',
  '5': 'TLSv1.2',
};

const LEAST_VERSION: Record<string, tls.SecureVersion> = {
  '1.0': 'TLSv1',
  '1.1': 'TLSv1.1',
  '1.2': 'TLSv1.2',
  '1.3': 'TLSv1.3',
};

function tlsVersions(value: string): Pick<tls.ConnectionOptions, 'minVersion' | 'maxVersion'> {
  const v = value.trim();
  if (v === '') return {};
  const exact = EXACT_VERSION[v];
  if (exact) return { minVersion: exact, maxVersion: exact };
  const least = LEAST_VERSION[v.replace(/^tlsv?/i, '')];
  if (least) return { minVersion: least };
  throw new ParameterError(
    `TLS_VERSION '${value}' is not supported: use 2 (TLS 1.3), 3, 4, 5 (exactly TLS 1.0, 1.1, 1.2) or 1.2/1.3 (at least)`,
  );
}

/** The PEM certificates of TLS_CA_FILE (read under the rule of src/files) and CACERTIFICATE. */
function trustedCas(s: ResolverSettings, files: AllowedFiles): string[] {
  const ca: string[] = [];
  const caFile = settingText(s, 'TLS_CA_FILE').trim();
  if (caFile !== '') ca.push(files.read(caFile, 'TLS_CA_FILE').toString('utf8'));
  const caText = settingText(s, 'CACERTIFICATE').trim();
  if (caText !== '') ca.push(caText);
  if (ca.length > 0 && !ca.every((c) => c.includes('-----BEGIN CERTIFICATE-----'))) {
    throw new ParameterError('TLS_CA_FILE/CACERTIFICATE must hold PEM certificates');
  }
  return ca;
}

export function tlsOptions(s: ResolverSettings, files: AllowedFiles): tls.ConnectionOptions {
  const verify = settingBool(s, 'TLS_VERIFY', true);
  const ca = trustedCas(s, files);
  return {
    rejectUnauthorized: verify,
    ...(verify && ca.length > 0 ? { ca } : {}),
    ...tlsVersions(settingText(s, 'TLS_VERSION')),
  };
}
