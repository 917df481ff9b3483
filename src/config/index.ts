// The configuration file (TOML, overridable by AUTHSRV_* variables): loading, validation, durations.
export { parseDuration } from './duration.ts';
export { ConfigError, loadConfig } from './load.ts';
export type { Config } from './schema.ts';
