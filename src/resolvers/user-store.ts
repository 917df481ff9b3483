// The one interface every user store implements (passwd file, LDAP, SQL, SCIM), and the
// description of a resolver type: its settings and how to open it. The services above know only
// this file; adding a type is adding one file and one line in registry.ts.
import type { ResolverSettings, SettingsKind, StoreEnvironment } from './settings-kind.ts';

export type {
  PlainSettingSpec,
  ResolverSettings,
  SecretSettingSpec,
  SettingSpec,
  SettingType,
  StoreEnvironment,
  TestResult,
} from './settings-kind.ts';

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

export interface ResolverKind extends SettingsKind {
  /** The type name of the API, e.g. `ldapresolver`. */
  type: string;
  open(settings: ResolverSettings, env: StoreEnvironment): UserStore;
}
