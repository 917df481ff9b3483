// The user-store kinds (passwd, LDAP, SQL, SCIM): one interface, one registry, one file per kind.
export { resolverKind } from './registry.ts';
export type {
  ResolverKind,
  ResolverSettings,
  TestResult,
  UserChanges,
  UserRecord,
  UserStore,
} from './user-store.ts';
