// How long a request value may be, checked in the services before anything is written, so that
// over-long input gets a clear ParameterError on every dialect (SQLite would store it, PostgreSQL
// and MariaDB would refuse it with an error of their own). The limits fit every dialect: names fit
// varchar(255), free text fits a MariaDB TEXT column (65 535 bytes) even when every character
// takes four bytes in utf8mb4 and the value is stored encrypted.
import { MAX_PASSWORD_LENGTH } from '../crypto/index.ts';
import { ParameterError } from '../errors.ts';

export const LIMITS = {
  /** Names and keys stored in varchar(255): tokeninfo keys, token groups, policies, realms, resolvers. */
  name: 255,
  /** Free text in a TEXT column: tokeninfo values, policy attributes (10 000 × 4 bytes, sealed < 64 KiB). */
  text: 10_000,
  /** Descriptions stored in varchar(2000) (token groups, configuration). */
  description: 2000,
  /** Token seeds as given (hex or Base32): 512-byte keys, far beyond any real one. */
  otpkey: 1024,
  /** token.serial varchar(40). */
  serial: 40,
  /** Stored types of tokeninfo (varchar(100)) and user attributes (varchar(64)). */
  attributeType: 64,
  /**
   * Passwords, PINs and pass values (PIN + OTP), wherever one is hashed, verified or handed to a
   * user store: the hashes' own limit (MAX_PASSWORD_LENGTH, crypto/password-length.ts).
   */
  password: MAX_PASSWORD_LENGTH,
  /**
   * Search and filter values (`*` patterns, a list of serials, an audit column's filter): far
   * beyond any real search, and short enough for every database (SQLite refuses LIKE patterns
   * over 50 000 bytes, every dialect limits the bound values of a list).
   */
  filter: 1024,
} as const;

/** What a MariaDB TEXT column holds, in bytes of UTF-8, for composite values (resolver settings, config). */
export const TEXT_COLUMN_BYTES = 65_535;

/** Characters as the databases count them (code points), cheaply when the UTF-16 length is enough. */
export function charLength(value: string): number {
  if (value.length <= 1) return value.length;
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** Throws ParameterError 905 when `value` has more than `max` characters. */
export function checkLength(param: string, value: string | undefined | null, max: number): void {
  if (value === undefined || value === null || value.length <= max) return;
  if (charLength(value) > max) {
    throw new ParameterError(`The parameter '${param}' is longer than ${max} characters`);
  }
}

/** Throws ParameterError 905 for the first filter value (a text) longer than LIMITS.filter. */
export function checkFilters(filters: Readonly<Record<string, unknown>>): void {
  for (const [param, value] of Object.entries(filters))
    if (typeof value === 'string') checkLength(param, value, LIMITS.filter);
}

/** Cuts to at most `max` characters without splitting a surrogate pair. */
export function cutChars(value: string, max: number): string {
  if (value.length <= max) return value;
  const chars = [...value];
  return chars.length > max ? chars.slice(0, max).join('') : value;
}

/**
 * The database refused a value as too long (PostgreSQL SQLSTATE 22001 string_data_right_truncation;
 * MariaDB/MySQL ER_DATA_TOO_LONG 1406, WARN_DATA_TRUNCATED 1265) or as not storable text
 * (PostgreSQL 22021 NUL/invalid byte; MariaDB 1366 incorrect string value): a ParameterError
 * naming the column when the database names it. Anything else: undefined.
 */
export function valueRefusedByDatabase(err: unknown): ParameterError | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; errno?: unknown; message?: unknown; column?: unknown };
  const message = typeof e.message === 'string' ? e.message : '';
  const pg = typeof e.code === 'string' && typeof e.errno !== 'number' ? e.code : undefined;
  const mysqlErrno = typeof e.errno === 'number' ? e.errno : undefined;
  const column =
    (typeof e.column === 'string' && e.column) || /for column [`'"]?([^`'"\s]+)[`'"]?/i.exec(message)?.[1];
  const named = column ? ` (column '${column}')` : '';
  if (pg === '22001' || mysqlErrno === 1406 || mysqlErrno === 1265) {
    return new ParameterError(`A parameter value is too long to be stored${named}`);
  }
  if (pg === '22021' || mysqlErrno === 1366) {
    return new ParameterError(`A parameter value contains characters that cannot be stored${named}`);
  }
  return undefined;
}
