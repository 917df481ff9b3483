// The LDAP user store (ldapresolver), in files of one job: settings.ts (what the API shows) and
// config.ts with tls-options.ts (reading them), warnings.ts (settings accepted without effect),
// filter.ts and dn.ts (search filters and distinguished names), guid.ts and ssha.ts (objectGUID
// and {SSHA} values), connection.ts, server-pool.ts, bind-connections.ts and directory.ts (the
// connections and what may fail on them), entries.ts, cache.ts, writes.ts and store.ts (the user
// store), resolver.ts (the kind). Only the kind leaves this folder.
export { ldapResolver } from './resolver.ts';
