// What every kind of a settings-driven plug-in shares (user stores here, machine resolvers in
// src/machine-resolvers): the description of its settings (types, defaults, secrets and where each
// secret goes), how they are checked and tested, and what a store gets to work with. The services
// merge, seal, censor and test settings the same way for every such kind.
import type { Logger } from 'pino';
import type { AllowedFiles } from '../files/index.ts';

export type SettingType = 'string' | 'int' | 'bool' | 'password' | 'json' | 'text';

interface SettingSpecBase {
  description: string;
  default?: string;
  required?: boolean;
  /** Other spellings accepted for this setting (e.g. passwd's `fileName`). */
  aliases?: readonly string[];
}

export interface PlainSettingSpec extends SettingSpecBase {
  type: Exclude<SettingType, 'password'>;
}

/** A secret setting (sealed when stored, shown as __CENSORED__) and where the secret goes. */
export interface SecretSettingSpec extends SettingSpecBase {
  type: 'password';
  /**
   * The settings that decide where this secret is sent or whose secret it is (server, port, account,
   * the TLS trust that decides who may answer …). A stored secret is reused (sent back as
   * __CENSORED__, or not sent) only while all of them are unchanged; otherwise it must be given again.
   */
  destination: readonly string[];
}

export type SettingSpec = PlainSettingSpec | SecretSettingSpec;

/** A resolver's settings as stored: text values, passwords in clear (decrypted by the service). */
export type ResolverSettings = Record<string, string>;

export interface StoreEnvironment {
  log: Logger;
  clock: () => Date;
  /** The only way a store opens a file its settings name (files.allowed_dirs). */
  files: AllowedFiles;
}

export interface TestResult {
  /** privacyIDEA's value: a boolean, or for SQL the number of users found (-1 on failure). */
  value: boolean | number;
  description: string;
}

export interface SettingsKind {
  /** The type name of the API, e.g. `ldapresolver` or `hosts`. */
  type: string;
  settings: Record<string, SettingSpec>;
  /**
   * Checks settings beyond their types (URIs, JSON maps, the files they name …); throws
   * ParameterError.
   */
  validate?(settings: ResolverSettings, files: AllowedFiles): void;
  /** Tries the settings without saving them. */
  test(settings: ResolverSettings, env: StoreEnvironment): Promise<TestResult>;
  /**
   * Settings that are accepted (so that privacyIDEA configurations import unchanged) but have no
   * effect with these values: one sentence each, naming the setting and why. Never refuses anything.
   */
  warnings?(settings: ResolverSettings): string[];
}
