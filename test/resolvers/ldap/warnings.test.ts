// The privacyIDEA LDAP settings that are accepted but not used: which values are named, and how.
// No directory is needed: the settings are only looked at.
import { describe, expect, it } from 'vitest';
import { ldapResolver } from '../../../src/resolvers/ldap/index.ts';
import { ignoredSettings } from '../../../src/resolvers/ldap/warnings.ts';

const BASE = { LDAPURI: 'ldap://127.0.0.1:9', LDAPBASE: 'dc=example,dc=org' };
const GROUPS = 'group lookups are not supported, users get no group memberships.';

describe('ldapresolver settings without effect', () => {
  it('names KEYTABFILE: Kerberos/SASL binds are not supported', () => {
    expect(ignoredSettings({ ...BASE, KEYTABFILE: '/etc/krb5.keytab' })).toEqual([
      'LDAP setting KEYTABFILE is accepted but not used: Kerberos/SASL binds are not supported.',
    ]);
  });

  it('names server pool settings that ask for something else than trying each server once, in order', () => {
    expect(ignoredSettings({ ...BASE, SERVERPOOL_STRATEGY: 'RANDOM', SERVERPOOL_ROUNDS: '5' })).toEqual([
      'LDAP setting SERVERPOOL_ROUNDS is accepted but not used: each server of LDAPURI is tried once per connection, in the given order.',
      'LDAP setting SERVERPOOL_STRATEGY is accepted but not used: servers are always tried in the given order (as with FIRST).',
    ]);
    expect(ignoredSettings({ ...BASE, SERVERPOOL_ROUNDS: '0' })).toHaveLength(1);
  });

  it('names every group setting that is set: group lookups are not supported', () => {
    const warnings = ignoredSettings({
      ...BASE,
      group_name_attribute: 'distinguishedName',
      group_base_dn: 'ou=groups,dc=example,dc=org',
      group_search_filter: '(objectClass=group)',
      group_attribute_mapping_key: 'groups',
      recursive_group_search: 'True',
    });
    expect(warnings).toEqual(
      [
        'group_name_attribute',
        'group_base_dn',
        'group_search_filter',
        'group_attribute_mapping_key',
        'recursive_group_search',
      ].map((key) => `LDAP setting ${key} is accepted but not used: ${GROUPS}`),
    );
    expect(ignoredSettings({ ...BASE, recursive_group_search: '1' })).toHaveLength(1);
  });

  it('names nothing for empty values, privacyIDEA defaults and values that ask for what is done anyway', () => {
    expect(ignoredSettings(BASE)).toEqual([]);
    // What privacyIDEA's own resolver form sends for a new LDAP resolver.
    expect(
      ignoredSettings({
        ...BASE,
        KEYTABFILE: '',
        SERVERPOOL_ROUNDS: '2',
        SERVERPOOL_SKIP: '30',
        SERVERPOOL_STRATEGY: 'ROUND_ROBIN',
        SERVERPOOL_PERSISTENT: 'False',
        group_name_attribute: '',
        group_base_dn: ' ',
        group_search_filter: '',
        group_attribute_mapping_key: '',
        recursive_group_search: 'False',
      }),
    ).toEqual([]);
    // Servers are tried in order, each once, and skipped servers are remembered per resolver.
    expect(
      ignoredSettings({
        ...BASE,
        SERVERPOOL_STRATEGY: 'first',
        SERVERPOOL_ROUNDS: '1',
        SERVERPOOL_PERSISTENT: 'True',
        recursive_group_search: '0',
      }),
    ).toEqual([]);
  });

  it('is the warnings hook of the ldapresolver type', () => {
    expect(ldapResolver.warnings).toBe(ignoredSettings);
  });
});
