// The user-store kinds (passwd, LDAP, SQL, SCIM): one interface, one registry, one file per kind;
// and what the other settings-driven kinds (src/machine-resolvers) share with them: the settings
// description (settings-kind.ts), the typed reading of settings, and the LDAP connections.
export {
  andFilter,
  attributeName,
  checkedSearchFilter,
  Directory,
  equalityFilter,
  LDAP_CONNECTION_SETTINGS,
  type LdapConnectionConfig,
  orFilter,
  parseConnectionConfig,
  substringFilter,
} from './ldap/index.ts';
export { resolverKind, resolverKinds } from './registry.ts';
export { settingBool, settingInt, settingText } from './settings.ts';
export type {
  ResolverSettings,
  SettingSpec,
  SettingsKind,
  StoreEnvironment,
  TestResult,
} from './settings-kind.ts';
export type { ResolverKind, UserChanges, UserRecord, UserStore } from './user-store.ts';
