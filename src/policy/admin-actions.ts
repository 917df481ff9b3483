// The rights of the admin and user scopes and the main menus they open, derived from the action
// table (src/policy/definitions.ts). Until an active policy exists in the caller's scope, the
// caller holds every right of the scope; the policy engine narrows that.

import { actionsOf, staticActions } from './definitions.ts';

export type MainMenu = 'tokens' | 'users' | 'machines' | 'config' | 'audit' | 'components';

/** The main menus in the order the privacyIDEA web UI shows them. */
const MENU_ORDER: readonly MainMenu[] = ['tokens', 'users', 'machines', 'config', 'audit', 'components'];

// Menus are looked up in the admin scope for either role, as the web UI does: `password_reset`
// (user scope only) opens no menu of its own.
const MENU_OF = new Map<string, readonly string[]>(
  Object.entries(staticActions('admin')).flatMap(([name, d]) =>
    d.mainmenu ? [[name, d.mainmenu] as const] : [],
  ),
);

/** The main menus opened by a set of rights, in the order the privacyIDEA web UI shows them. */
export function menusFor(rights: readonly string[]): MainMenu[] {
  const opened = new Set(rights.flatMap((r) => MENU_OF.get(r) ?? []));
  return MENU_ORDER.filter((m) => opened.has(m));
}

/**
 * The rights a caller of the scope can hold (reference 2.4): every static and dynamic action name
 * of the scope. A caller whose scope has no active policy holds them all.
 */
export function rightCandidates(scope: 'admin' | 'user'): string[] {
  return Object.keys(actionsOf(scope));
}
