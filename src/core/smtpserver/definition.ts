// An SMTP server definition's fields (reference 8.3): parsing a request into them over the stored
// ones, their checks, and the stored row ↔ settings in clear. The password is sealed by the security
// module and reused (not sent, or sent back as __CENSORED__) only while its destination stays the
// same (secret-reuse.ts): the server, port, account and the TLS that protects it.
import type { Selectable } from 'kysely';
import { ParameterError } from '../../errors.ts';
import type { SmtpServerSettings } from '../../gateways/smtp/index.ts';
import { isTrue } from '../../is-true.ts';
import type { SmtpServerTable } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { checkSecretReuse, type ReusableSettingSpec } from '../secret-reuse.ts';
import { CENSORED } from '../system/index.ts';

export type SmtpServerRow = Selectable<SmtpServerTable>;

/** privacyIDEA's defaults: port 25, 10 seconds. */
export const DEFAULT_PORT = 25;
export const DEFAULT_TIMEOUT = 10;
/** No mail is worth holding a login longer. */
const MAX_TIMEOUT = 120;

const IDENTIFIER_SYNTAX = /^[A-Za-z0-9_.-]{1,255}$/;
const HOST_SYNTAX = /^[A-Za-z0-9_.:[\]-]{1,255}$/;
const BOOL_TEXTS = ['0', '1', 'true', 'false', 'True', 'False', 'TRUE', 'FALSE'];

/** The fields of a definition, as text, in the order the listing shows them. */
export const FIELDS = [
  'server',
  'port',
  'username',
  'password',
  'sender',
  'tls',
  'timeout',
  'description',
  'cacertificate',
] as const;
type Field = (typeof FIELDS)[number];
type Fields = Record<Field, string>;

/** The secret-reuse rule's view of the fields: the password goes to the server, port, account, TLS. */
const SPECS: Record<Field, ReusableSettingSpec> = {
  server: { type: 'string' },
  port: { type: 'int', default: String(DEFAULT_PORT) },
  username: { type: 'string' },
  password: { type: 'password', destination: ['server', 'port', 'username', 'tls', 'cacertificate'] },
  sender: { type: 'string' },
  tls: { type: 'bool', default: 'False' },
  timeout: { type: 'int', default: String(DEFAULT_TIMEOUT) },
  description: { type: 'string' },
  cacertificate: { type: 'string' },
};

export function checkIdentifier(identifier: string): void {
  checkLength('identifier', identifier, LIMITS.name);
  if (!IDENTIFIER_SYNTAX.test(identifier)) {
    throw new ParameterError(
      `Invalid SMTP server identifier '${identifier}': use letters, digits, '_', '-' or '.'`,
    );
  }
}

/** The stored row's fields as text, the password in clear. */
export function fieldsOf(rt: Runtime, row: SmtpServerRow | undefined): Fields {
  return {
    server: row?.server ?? '',
    port: String(row?.port ?? DEFAULT_PORT),
    username: row?.username ?? '',
    password: row && row.password !== '' ? rt.hsm.decrypt(row.password) : '',
    sender: row?.sender ?? '',
    tls: Number(row?.tls ?? 0) === 1 ? 'True' : 'False',
    timeout: String(row?.timeout ?? DEFAULT_TIMEOUT),
    description: row?.description ?? '',
    cacertificate: row?.cacertificate ?? '',
  };
}

function wholeNumber(name: string, text: string, min: number, max: number): number {
  const n = /^\s*\d{1,9}\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ParameterError(`${name} must be a whole number from ${min} to ${max}, not '${text}'`);
  return n;
}

function checkFields(f: Fields): void {
  if (f.server === '') throw ParameterError.missing('server');
  if (!HOST_SYNTAX.test(f.server)) throw new ParameterError(`Invalid server '${f.server}'`);
  wholeNumber('port', f.port, 1, 65_535);
  wholeNumber('timeout', f.timeout, 1, MAX_TIMEOUT);
  if (!BOOL_TEXTS.includes(f.tls)) throw new ParameterError('tls must be True or False');
  for (const key of ['username', 'sender'] as const) checkLength(key, f[key], LIMITS.name);
  checkLength('password', f.password, LIMITS.password);
  checkLength('description', f.description, LIMITS.description);
  checkLength('cacertificate', f.cacertificate, LIMITS.text);
  if (f.cacertificate.trim() !== '' && !f.cacertificate.includes('-----BEGIN CERTIFICATE-----'))
    throw new ParameterError('cacertificate must hold PEM certificates');
  for (const [key, value] of Object.entries(f)) {
    if (value.includes('\u0000')) throw new ParameterError(`The value of ${key} contains a NUL character`);
  }
}

/**
 * The request's fields over the stored ones: an omitted field keeps its value, `password` sent as
 * __CENSORED__ keeps the stored one, but only for the same destination (secret-reuse.ts).
 */
export function mergeFields(stored: Fields, params: Readonly<Record<string, string | undefined>>): Fields {
  const merged: Fields = { ...stored };
  const given = new Set<string>();
  for (const key of FIELDS) {
    const value = params[key];
    if (value === undefined) continue;
    if (key === 'password' && value === CENSORED) {
      if (stored.password === '') throw new ParameterError(`password is ${CENSORED} but no value is stored`);
      continue;
    }
    merged[key] = key === 'server' ? value.trim() : value;
    given.add(key);
  }
  checkSecretReuse({
    specs: SPECS,
    stored,
    requested: merged,
    secrets: new Set(['password']),
    given,
  });
  checkFields(merged);
  return merged;
}

/** The row to store of checked fields. */
export function rowOf(rt: Runtime, f: Fields): Omit<SmtpServerRow, 'id' | 'identifier'> {
  return {
    server: f.server,
    port: Number(f.port),
    username: f.username,
    password: f.password === '' ? '' : rt.hsm.encrypt(f.password),
    sender: f.sender,
    tls: isTrue(f.tls) ? 1 : 0,
    timeout: Number(f.timeout),
    description: f.description,
    cacertificate: f.cacertificate,
  };
}

/** Checked fields as the gateway takes them. */
export function settingsOf(f: Fields): SmtpServerSettings {
  return {
    server: f.server,
    port: Number(f.port),
    username: f.username,
    password: f.password,
    sender: f.sender,
    tls: isTrue(f.tls),
    timeout: Number(f.timeout),
    cacertificate: f.cacertificate,
  };
}
