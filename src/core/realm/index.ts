// Realms (/realm/): named, ordered groups of resolvers, and the default realm.
export { defaultRealmView } from './default-realm.ts';
export {
  clearDefaultRealm,
  deleteRealm,
  listRealms,
  normaliseRealmName,
  type RealmView,
  setDefaultRealm,
  setRealm,
  storedRealmName,
  superuserRealms,
  visibleRealms,
} from './realm.ts';
