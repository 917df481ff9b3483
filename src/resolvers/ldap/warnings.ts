// privacyIDEA settings accepted so that its configurations import unchanged, but not implemented:
// when a value asks for something else than authsrv does, ignoredSettings names it. Empty values,
// privacyIDEA's defaults (SERVERPOOL_ROUNDS 2, SERVERPOOL_STRATEGY ROUND_ROBIN, the rest empty or
// False) and values that ask for what authsrv does anyway are not named: servers are tried in order,
// each once per connection (FIRST, ROUNDS 1), and a pool's skipped servers are remembered for the
// life of the resolver (SERVERPOOL_PERSISTENT True), so SERVERPOOL_PERSISTENT is never named.
import { isTrue } from '../../is-true.ts';
import type { ResolverSettings } from '../user-store.ts';

const GROUPS_UNSUPPORTED = 'group lookups are not supported, users get no group memberships';
const POOL_IN_ORDER = 'servers are always tried in the given order (as with FIRST)';

const IGNORED_SETTINGS: Record<string, { ignored: (value: string) => boolean; why: string }> = {
  KEYTABFILE: { ignored: (v) => v !== '', why: 'Kerberos/SASL binds are not supported' },
  SERVERPOOL_ROUNDS: {
    ignored: (v) => v !== '' && !['1', '2'].includes(String(Number(v))),
    why: 'each server of LDAPURI is tried once per connection, in the given order',
  },
  SERVERPOOL_STRATEGY: {
    ignored: (v) => v !== '' && !['ROUND_ROBIN', 'FIRST'].includes(v.toUpperCase()),
    why: POOL_IN_ORDER,
  },
  group_name_attribute: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  group_base_dn: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  group_search_filter: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  group_attribute_mapping_key: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  recursive_group_search: {
    ignored: isTrue,
    why: GROUPS_UNSUPPORTED,
  },
};

/** One sentence for every setting that is accepted but has no effect with its value. */
export function ignoredSettings(settings: ResolverSettings): string[] {
  const out: string[] = [];
  for (const [key, rule] of Object.entries(IGNORED_SETTINGS)) {
    if (rule.ignored((settings[key] ?? '').trim())) {
      out.push(`LDAP setting ${key} is accepted but not used: ${rule.why}.`);
    }
  }
  return out;
}
