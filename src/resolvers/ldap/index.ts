// The LDAP user store (ldapresolver), in files of one job: settings.ts (what the API shows) and
// config.ts with tls-options.ts (reading them), warnings.ts (settings accepted without effect),
// filter.ts and dn.ts (search filters and distinguished names), guid.ts and ssha.ts (objectGUID
// and {SSHA} values), connection.ts, server-pool.ts, bind-connections.ts and directory.ts (the
// connections and what may fail on them), entries.ts, cache.ts, writes.ts and store.ts (the user
// store), resolver.ts (the kind). The kind leaves this folder, and so does what the LDAP machine
// resolver (src/machine-resolvers/ldap.ts) shares with it: the connection settings and their
// reading, the connections (Directory: server pool, TLS, bind, time limits, paged searches) and the
// filter and attribute-name checks.
export { attributeName, type LdapConnectionConfig, parseConnectionConfig } from './config.ts';
export { Directory } from './directory.ts';
export { andFilter, checkedSearchFilter, equalityFilter, orFilter, substringFilter } from './filter.ts';
export { ldapResolver } from './resolver.ts';
export { LDAP_CONNECTION_SETTINGS } from './settings.ts';
