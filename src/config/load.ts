// Reads the configuration: built-in defaults, then the TOML file, then AUTHSRV_* environment
// variables. Every value is validated against CONFIG_KEYS; a bad one stops start-up with a message
// that names the key and where it came from.
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parse as parseToml } from 'smol-toml';
import { parseDuration } from './duration.ts';
import { CONFIG_KEYS, type Config, type FlatValues, hostPort, type KeySpec, toConfig } from './schema.ts';

export class ConfigError extends Error {}

export interface LoadOptions {
  /** Explicit config file (`--config`); it must exist. */
  file?: string | undefined;
  /** Overrides applied last (`--data-dir`). */
  overrides?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_FILE = 'authsrv.toml';
/**
 * Environment names that belong to the tooling, not to the server's configuration: the config
 * file's path, the test suite's database URLs and the CLI's stack-trace switch (src/cli/program.ts).
 */
const ENV_NOT_CONFIG = /^AUTHSRV_(CONFIG|DEBUG|TEST_.*)$/;

export function envName(key: string): string {
  return `AUTHSRV_${key.replace(/\./g, '_').toUpperCase()}`;
}

export function loadConfig(options: LoadOptions = {}): Config {
  const env = options.env ?? process.env;
  // An empty AUTHSRV_CONFIG (e.g. `AUTHSRV_CONFIG= authsrv …`) means unset, not a file named ''.
  const file =
    options.file ??
    (env.AUTHSRV_CONFIG || undefined) ??
    (existsSync(DEFAULT_FILE) ? DEFAULT_FILE : undefined);
  const values: FlatValues = {};
  for (const spec of CONFIG_KEYS) values[spec.key] = spec.default;

  if (file !== undefined) {
    for (const [key, raw] of Object.entries(readTomlFlat(file))) {
      const spec = specOf(key, `in ${file}`);
      values[key] = fromToml(spec, raw, `${key} (in ${file})`);
    }
  }
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('AUTHSRV_') || ENV_NOT_CONFIG.test(name) || raw === undefined) continue;
    const spec = CONFIG_KEYS.find((s) => envName(s.key) === name);
    if (!spec)
      throw new ConfigError(`Unknown environment variable ${name}: no configuration key has that name`);
    values[spec.key] = fromText(spec, raw, `${spec.key} (from ${name})`);
  }
  for (const [key, raw] of Object.entries(options.overrides ?? {})) {
    const spec = specOf(key, 'on the command line');
    values[key] = fromText(spec, raw, `${key} (command line)`);
  }
  // Durations are kept in seconds; an empty value means "no limit" (audit.max_age) or none.
  for (const spec of CONFIG_KEYS) {
    if (spec.kind === 'duration')
      values[spec.key] = values[spec.key] === '' ? 0 : durationSeconds(values[spec.key]);
  }
  const config = toConfig(values, file);
  crossCheck(config);
  return config;
}

function durationSeconds(v: unknown): number {
  return typeof v === 'number' ? v : parseDuration(String(v));
}

function specOf(key: string, where: string): KeySpec {
  const spec = CONFIG_KEYS.find((s) => s.key === key);
  if (!spec) throw new ConfigError(`Unknown configuration key '${key}' ${where}`);
  return spec;
}

function readTomlFlat(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`Cannot read configuration file ${file}: ${(e as Error).message}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError(`Configuration file ${file} is not valid TOML: ${(e as Error).message}`);
  }
  const flat: Record<string, unknown> = {};
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix + k;
      const isSection = v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
      if (isSection && !CONFIG_KEYS.some((s) => s.key === key)) walk(v as Record<string, unknown>, `${key}.`);
      else flat[key] = v;
    }
  };
  walk(doc, '');
  return flat;
}

function fromToml(spec: KeySpec, raw: unknown, label: string): string | number | boolean | string[] {
  switch (spec.kind) {
    case 'list':
      if (!Array.isArray(raw) || raw.some((x) => typeof x !== 'string')) {
        throw new ConfigError(`${label} must be a list of strings`);
      }
      return check(spec, raw as string[], label);
    case 'int':
      if (typeof raw !== 'number' && typeof raw !== 'bigint')
        throw new ConfigError(`${label} must be an integer`);
      return check(spec, Number(raw), label);
    case 'bool':
      if (typeof raw !== 'boolean') throw new ConfigError(`${label} must be true or false`);
      return raw;
    default:
      if (typeof raw !== 'string') throw new ConfigError(`${label} must be a string`);
      return check(spec, raw, label);
  }
}

function fromText(spec: KeySpec, raw: string, label: string): string | number | boolean | string[] {
  switch (spec.kind) {
    case 'list':
      return check(
        spec,
        raw
          .split(',')
          .map((x) => x.trim())
          .filter((x) => x !== ''),
        label,
      );
    case 'int':
      if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${label} must be an integer, got '${raw}'`);
      return check(spec, Number(raw.trim()), label);
    case 'bool': {
      const t = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(t)) return true;
      if (['0', 'false', 'no', 'off'].includes(t)) return false;
      throw new ConfigError(`${label} must be true or false, got '${raw}'`);
    }
    default:
      return check(spec, raw, label);
  }
}

function check<T extends string | number | string[]>(spec: KeySpec, value: T, label: string): T {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new ConfigError(`${label} must be an integer`);
    if (spec.min !== undefined && value < spec.min)
      throw new ConfigError(`${label} must be at least ${spec.min}`);
    if (spec.max !== undefined && value > spec.max)
      throw new ConfigError(`${label} must be at most ${spec.max}`);
  }
  if (spec.kind === 'enum' && !spec.values?.includes(value as string)) {
    throw new ConfigError(`${label} must be one of ${spec.values?.join(', ')}, got '${value}'`);
  }
  if (spec.kind === 'duration' && value !== '') {
    try {
      parseDuration(value as string);
    } catch {
      throw new ConfigError(`${label} must be a time span such as 90d or 12h, got '${value}'`);
    }
  }
  if (spec.key === 'radius.listen' && value !== '') {
    const at = hostPort(value as string);
    if (!at || at.port > 65535 || isIP(at.host) === 0)
      throw new ConfigError(
        `${label} must be an IP address and UDP port such as 0.0.0.0:1812 or [::]:1812, got '${value}'`,
      );
  }
  if (spec.key === 'metrics.listen' && value !== '') {
    const at = hostPort(value as string);
    if (!at || at.port > 65535 || isIP(at.host) === 0)
      throw new ConfigError(`${label} must be an IP address and port such as 127.0.0.1:9464, got '${value}'`);
  }
  if (spec.key === 'http.trusted_proxies') {
    for (const entry of value as string[]) {
      const [addr, bits, ...rest] = entry.split('/');
      const family = isIP(addr ?? '');
      const maxBits = family === 6 ? 128 : 32;
      const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
      if (family === 0 || !bitsOk || rest.length > 0)
        throw new ConfigError(`${label}: '${entry}' is not an IP address or CIDR range`);
    }
  }
  return value;
}

function crossCheck(config: Config): void {
  // An empty data_dir would scatter the key files into the working directory; an empty host
  // would listen on every interface, which must be asked for explicitly (0.0.0.0 or ::).
  if (config.dataDir.trim() === '') throw new ConfigError('data_dir must not be empty');
  if (config.http.host.trim() === '') throw new ConfigError('http.host must not be empty');
  // An empty entry would allow the working directory, whatever that is when the server starts.
  if (config.files.allowedDirs.some((d) => d.trim() === ''))
    throw new ConfigError('files.allowed_dirs must not hold an empty directory name');
  if (config.throttle.maxDelay < config.throttle.baseDelay)
    throw new ConfigError('throttle.max_delay must not be shorter than throttle.base_delay');
  if ((config.http.tlsCert === '') !== (config.http.tlsKey === '')) {
    throw new ConfigError('http.tls_cert and http.tls_key must be set together');
  }
  const m = config.metrics;
  if (m.enabled && m.listen === undefined && m.tokenFile === '') {
    throw new ConfigError(
      'metrics.enabled needs metrics.listen (a listener of its own, e.g. 127.0.0.1:9464) or ' +
        'metrics.token_file (a bearer token), so that /metrics is not public',
    );
  }
  const url = config.databaseUrl;
  if (url !== '' && !/^(sqlite:|postgres:|postgresql:|mysql:|mariadb:)/.test(url)) {
    throw new ConfigError(
      `database_url must start with sqlite:, postgres:, postgresql:, mysql: or mariadb:, got '${redactUrl(url)}'`,
    );
  }
}

/**
 * A database URL without its password, safe for logs and error messages. The password ends at the
 * last '@', since people do not always percent-encode an '@' or '/' in it; a `password=` query
 * parameter (libpq accepts one) is hidden too.
 */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:).*@/, '$1***@').replace(/([?&]password=)[^&]*/gi, '$1***');
}
