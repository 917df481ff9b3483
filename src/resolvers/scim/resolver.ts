// scimresolver: users of a SCIM 2.0 service (RFC 7643/7644), read-only.
import type { ResolverKind } from '../user-store.ts';
import { parseConfig } from './config.ts';
import { SCIM_SETTINGS } from './settings.ts';
import { ScimStore } from './store.ts';

export const scimResolver: ResolverKind = {
  type: 'scimresolver',
  settings: SCIM_SETTINGS,
  validate(settings) {
    parseConfig(settings);
  },
  open: (settings, env) => new ScimStore(parseConfig(settings), env),
  async test(settings, env) {
    let store: ScimStore | undefined;
    try {
      store = new ScimStore(parseConfig(settings), env);
      return { value: true, description: `Found ${await store.count()} users` };
    } catch (e) {
      return { value: false, description: `failed to retrieve users: ${(e as Error).message}` };
    } finally {
      await store?.close();
    }
  },
};
