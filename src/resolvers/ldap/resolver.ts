// ldapresolver: users of an LDAP directory (OpenLDAP, 389-DS, Active Directory) through ldapts,
// with the settings of privacyIDEA's LDAPIdResolver.
import type { ResolverKind, ResolverSettings, StoreEnvironment, TestResult } from '../user-store.ts';
import { parseConfig } from './config.ts';
import { LDAP_SETTINGS } from './settings.ts';
import { LdapStore } from './store.ts';
import { ignoredSettings } from './warnings.ts';

export const ldapResolver: ResolverKind = {
  type: 'ldapresolver',
  settings: LDAP_SETTINGS,
  validate(settings, files) {
    parseConfig(settings, files);
  },
  warnings: ignoredSettings,
  open: (settings, env) => new LdapStore(parseConfig(settings, env.files), env),
  async test(settings: ResolverSettings, env: StoreEnvironment): Promise<TestResult> {
    let store: LdapStore | undefined;
    try {
      store = new LdapStore(parseConfig(settings, env.files), env);
      const { count, withUid } = await store.count();
      return {
        value: true,
        description:
          withUid < count
            ? `Your LDAP config found ${count} user objects, but only ${withUid} with the specified uidtype`
            : `Your LDAP config seems to be OK, ${count} user objects found.`,
      };
    } catch (e) {
      return { value: false, description: e instanceof Error ? e.message : String(e) };
    } finally {
      await store?.close();
    }
  },
};
