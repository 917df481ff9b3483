// The one interface every user store implements (passwd file, LDAP, SQL, SCIM), and the
// description of a resolver type: its settings and how to open it. The services above know only
// this file; adding a type is adding one file and one line in registry.ts.
import type { Logger } from 'pino';
import type { AllowedFiles } from '../files/index.ts';

/** A user as privacyIDEA names the attributes; stores may add more (mapped LDAP attributes …). */
export interface UserRecord {
  userid: string;
  username: string;
  givenname?: string;
  surname?: string;
  email?: string;
  phone?: string;
  mobile?: string;
  description?: string;
  [attribute: string]: string | string[] | undefined;
}

/** Search fields by privacyIDEA attribute name; `*` is a wildcard. */
export type UserSearch = Record<string, string>;

/** Attributes for creating or changing a user in an editable store. */
export type UserChanges = Partial<Record<string, string>>;

export interface UserStore {
  readonly editable: boolean;
  /** The user with this login name, or undefined. One lookup: the store's cheapest query. */
  findByLogin(login: string): Promise<UserRecord | undefined>;
  findById(userid: string): Promise<UserRecord | undefined>;
  /** Users matching every search field, at most `limit`. */
  search(filter: UserSearch, limit: number): Promise<UserRecord[]>;
  /** True when the password is the user's; a store that cannot check passwords throws. */
  checkPassword(user: UserRecord, password: string): Promise<boolean>;
  /**
   * Spends on a login name the store does not know what checkPassword spends on a wrong password
   * of a user it knows (a hash of the same kind and cost), so that the time of a login does not
   * tell whether the name exists. Stores whose check costs nothing worth imitating leave it out.
   */
  checkPasswordOfNobody?(password: string): Promise<void>;
  /** Editable stores only: returns the new user's id. */
  create?(changes: UserChanges, password: string | undefined): Promise<string>;
  update?(user: UserRecord, changes: UserChanges, password: string | undefined): Promise<void>;
  delete?(user: UserRecord): Promise<void>;
  /** Releases connections and file watchers. */
  close(): Promise<void>;
}

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

export interface ResolverKind {
  /** The type name of the API, e.g. `ldapresolver`. */
  type: string;
  settings: Record<string, SettingSpec>;
  /**
   * Checks settings beyond their types (URIs, JSON maps, the files they name …); throws
   * ParameterError.
   */
  validate?(settings: ResolverSettings, files: AllowedFiles): void;
  open(settings: ResolverSettings, env: StoreEnvironment): UserStore;
  /** Tries the settings without saving them. */
  test(settings: ResolverSettings, env: StoreEnvironment): Promise<TestResult>;
  /**
   * Settings that are accepted (so that privacyIDEA configurations import unchanged) but have no
   * effect with these values: one sentence each, naming the setting and why. Never refuses anything.
   */
  warnings?(settings: ResolverSettings): string[];
}
