// Who the users are: the realms with their resolvers in order, the open user store of each
// resolver, and finding a user by login and realm. It sits below access/ (whose policy checks
// resolve the user a request names); managing realms, resolvers and users sits above it, in
// realm/, resolver/ and user/.
export { type DirectoryResolver, realmDirectory, writeRealmTables } from './realm-directory.ts';
export { defaultRealm, orderedResolvers, realmExists, realmsOfResolver } from './realms.ts';
export {
  closeUserStores,
  dropStore,
  type ResolverHandle,
  userStore,
  userStoreOf,
} from './user-stores.ts';
export { findUser, type ResolvedUser, requireUser, resolversOfUser, splitLogin } from './users.ts';
