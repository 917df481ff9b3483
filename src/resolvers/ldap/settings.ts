// The settings of an LDAP resolver as the API describes them (types, defaults), with privacyIDEA's
// LDAPIdResolver names.
import type { PlainSettingSpec, SettingSpec } from '../user-store.ts';

export const DEFAULT_USERINFO: Readonly<Record<string, string>> = {
  phone: 'telephoneNumber',
  mobile: 'mobile',
  email: 'mail',
  surname: 'sn',
  givenname: 'givenName',
};

export const DEFAULT_OBJECT_CLASSES: readonly string[] = [
  'top',
  'person',
  'organizationalPerson',
  'inetOrgPerson',
];

const spec = (
  type: PlainSettingSpec['type'],
  description: string,
  extra: Partial<PlainSettingSpec> = {},
): PlainSettingSpec => ({ type, description, ...extra });

export const LDAP_SETTINGS: Record<string, SettingSpec> = {
  LDAPURI: spec(
    'string',
    'LDAP server URI, or a comma-separated list of URIs (a server pool with fail-over)',
    {
      required: true,
    },
  ),
  LDAPBASE: spec('string', 'Base DN of the user search', { required: true }),
  AUTHTYPE: spec('string', 'Simple or Anonymous', { default: 'Simple' }),
  BINDDN: spec('string', 'DN of the service account that searches the directory (empty: anonymous)'),
  BINDPW: {
    type: 'password',
    description: 'Password of BINDDN',
    // The server, the account, and the TLS settings that decide who may answer in the server's name
    // (or whether anyone on the way reads along).
    destination: ['LDAPURI', 'BINDDN', 'START_TLS', 'TLS_VERIFY', 'TLS_CA_FILE', 'CACERTIFICATE'],
  },
  TIMEOUT: spec('int', 'Seconds to connect and for every LDAP request', { default: '5' }),
  CACHE_TIMEOUT: spec('int', 'Seconds users found are cached (0: no cache)', { default: '120' }),
  SIZELIMIT: spec('int', 'Maximum number of users a search returns', { default: '500' }),
  LOGINNAMEATTRIBUTE: spec('string', 'Login attribute(s), comma-separated; the first gives the user name', {
    default: 'uid',
  }),
  LDAPSEARCHFILTER: spec('string', 'Filters AND-ed to every lookup, e.g. (uid=*)(objectClass=inetOrgPerson)'),
  LDAPFILTER: spec('string', 'Legacy filter with %s for the login; used only without LDAPSEARCHFILTER'),
  USERINFO: spec('json', 'JSON map of user attributes to LDAP attributes', {
    default: JSON.stringify(DEFAULT_USERINFO),
  }),
  UIDTYPE: spec('string', 'DN, or the attribute holding the user id (entryUUID, uidNumber, objectGUID …)', {
    default: 'DN',
  }),
  MULTIVALUEATTRIBUTES: spec('json', 'JSON list of user attributes that keep all their values', {
    default: '["mobile"]',
  }),
  NOREFERRALS: spec('bool', 'Ignore referrals (they are never followed either way)', { default: 'False' }),
  NOSCHEMAS: spec('bool', 'Do not read the schema (never read)', { default: 'False' }),
  EDITABLE: spec('bool', 'Users may be created, changed and deleted', { default: 'False' }),
  SCOPE: spec('string', 'Search scope: subtree, one or base', { default: 'subtree' }),
  START_TLS: spec('bool', 'Use StartTLS on ldap:// connections', { default: 'False' }),
  TLS_VERIFY: spec('bool', 'Verify the server certificate', { default: 'True' }),
  TLS_VERSION: spec('string', '2 (TLS 1.3), 3/4/5 (exactly TLS 1.0/1.1/1.2), or 1.2/1.3 (at least)'),
  TLS_CA_FILE: spec('string', 'File with the CA certificate(s) (PEM) to verify the server with'),
  CACERTIFICATE: spec('text', 'CA certificate(s) (PEM) to verify the server with'),
  SERVERPOOL_SKIP: spec('int', 'Seconds an unreachable server of the pool is skipped', { default: '30' }),
  // privacyIDEA settings accepted so that its configurations import unchanged, but not used:
  // Kerberos (KEYTABFILE), the other pool strategies, and group lookups are not implemented.
  // Saving or testing a resolver that sets them warns (warnings.ts).
  KEYTABFILE: spec('string', 'Accepted for compatibility; not used (SASL Kerberos is not supported)'),
  SERVERPOOL_ROUNDS: spec('int', 'Accepted for compatibility; not used (each server is tried once)'),
  SERVERPOOL_PERSISTENT: spec(
    'bool',
    'Accepted for compatibility; not used (skipped servers are always remembered, as with True)',
  ),
  SERVERPOOL_STRATEGY: spec('string', 'Accepted for compatibility; not used (servers are tried in order)'),
  group_name_attribute: spec('string', 'Accepted for compatibility; not used'),
  group_base_dn: spec('string', 'Accepted for compatibility; not used'),
  group_search_filter: spec('string', 'Accepted for compatibility; not used'),
  group_attribute_mapping_key: spec('string', 'Accepted for compatibility; not used'),
  recursive_group_search: spec('bool', 'Accepted for compatibility; not used'),
  OBJECT_CLASSES: spec('string', 'Object classes of new users (comma-separated or JSON list)', {
    default: DEFAULT_OBJECT_CLASSES.join(', '),
  }),
  DN_TEMPLATE: spec('string', 'DN of new users, e.g. uid=<username>,ou=people,<basedn>'),
};

/** The settings of a connection (parseConnectionConfig), which the LDAP machine resolver shares. */
export const LDAP_CONNECTION_SETTINGS: Record<string, SettingSpec> = Object.fromEntries(
  [
    'LDAPURI',
    'LDAPBASE',
    'AUTHTYPE',
    'BINDDN',
    'BINDPW',
    'TIMEOUT',
    'START_TLS',
    'TLS_VERIFY',
    'TLS_VERSION',
    'TLS_CA_FILE',
    'CACERTIFICATE',
    'SERVERPOOL_SKIP',
  ].map((key) => [key, LDAP_SETTINGS[key]!]),
);
