// The main menus of the web UI that the rights of the admin and user scopes open, derived from the
// static action table (src/policy/definitions.ts).

import { staticActions } from './definitions.ts';

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
