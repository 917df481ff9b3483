// The rights of the admin and user scopes and the main menus they open, derived from the action
// table (src/policy/definitions.ts): a right is a boolean action that opens a main menu. Until an
// active policy exists in the caller's scope, the caller holds all of them; the policy engine
// narrows that.

import { actionsOf, type Scope, staticActions } from './definitions.ts';

export type MainMenu = 'tokens' | 'users' | 'machines' | 'config' | 'audit' | 'components';

/** The main menus in the order the privacyIDEA web UI shows them. */
const MENU_ORDER: readonly MainMenu[] = ['tokens', 'users', 'machines', 'config', 'audit', 'components'];

function rightsOf(scope: Scope): string[] {
  return Object.entries(staticActions(scope))
    .filter(
      ([, d]) => d.type === 'bool' && d.mainmenu?.some((m) => (MENU_ORDER as readonly string[]).includes(m)),
    )
    .map(([name]) => name);
}

export const ADMIN_ACTIONS: readonly string[] = rightsOf('admin');

/** The boolean actions of the user scope (marked † in reference 5.5): what users may do to themselves. */
export const USER_ACTIONS: readonly string[] = rightsOf('user');

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
 * The rights a caller of the scope can hold, in order: the static rights above, then the boolean
 * actions token types register (`enrollHOTP`, …). A caller whose scope has no active policy holds
 * them all.
 */
export function rightCandidates(scope: 'admin' | 'user'): string[] {
  const base = scope === 'admin' ? ADMIN_ACTIONS : USER_ACTIONS;
  const dynamic = Object.entries(actionsOf(scope))
    .filter(([name, d]) => d.type === 'bool' && !Object.hasOwn(staticActions(scope), name))
    .map(([name]) => name);
  return [...base, ...dynamic];
}
