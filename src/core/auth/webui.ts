// The webui scope at login (reference 2.1, 2.2, 5.5): how a realm user may log in (login_mode),
// how long the login token lives (jwt_validity) and the settings the web UI reads from the /auth
// answer. Matched by the login name and realm, the user's resolver and userinfo conditions.
import type { MatchRequest } from '../../policy/index.ts';
import type { Caller, Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';

/** Settings the privacyIDEA web UI reads from the /auth answer, before webui policies change them. */
export const WEBUI_DEFAULTS = {
  log_level: 30,
  logout_time: 120,
  timeout_action: 'lockscreen',
  audit_page_size: 10,
  token_page_size: 15,
  user_page_size: 15,
  policy_template_url: '/static/policy-templates/',
  default_tokentype: 'hotp',
  default_container_type: 'generic',
  user_details: false,
  token_wizard: false,
  token_wizard_2nd: false,
  admin_dashboard: false,
  dialog_no_token: false,
  search_on_enter: false,
  hide_welcome: false,
  hide_buttons: false,
  deletion_confirmation: false,
  show_seed: false,
  show_node: '',
  token_rollover: {},
  subscription_status: 0,
  subscription_status_push: 0,
  qr_image_android: null,
  qr_image_ios: null,
  qr_image_custom: null,
  logout_redirect_url: '',
  require_description: [],
  rss_age: 0,
  container_wizard: { enabled: false },
} as const;

type Setting = keyof typeof WEBUI_DEFAULTS;
type Kind = 'int' | 'str' | 'bool' | 'node';

/** Answer key ← webui action. */
const SETTINGS: readonly [Setting, string, Kind][] = [
  ['logout_time', 'logout_time', 'int'],
  ['timeout_action', 'timeout_action', 'str'],
  ['audit_page_size', 'audit_page_size', 'int'],
  ['token_page_size', 'token_page_size', 'int'],
  ['user_page_size', 'user_page_size', 'int'],
  ['policy_template_url', 'policy_template_url', 'str'],
  ['default_tokentype', 'default_tokentype', 'str'],
  ['user_details', 'user_details', 'bool'],
  ['token_wizard', 'tokenwizard', 'bool'],
  ['token_wizard_2nd', 'tokenwizard_2nd_token', 'bool'],
  ['admin_dashboard', 'admin_dashboard', 'bool'],
  ['dialog_no_token', 'dialog_no_token', 'bool'],
  ['search_on_enter', 'search_on_enter', 'bool'],
  ['hide_welcome', 'hide_welcome_info', 'bool'],
  ['hide_buttons', 'hide_buttons', 'bool'],
  ['deletion_confirmation', 'deletion_confirmation', 'bool'],
  ['show_seed', 'show_seed', 'bool'],
  ['show_node', 'show_node', 'node'],
  ['logout_redirect_url', 'logout_redirect', 'str'],
  ['rss_age', 'rss_age', 'int'],
];

export type LoginMode = 'userstore' | 'privacyIDEA' | 'disable';

/** Who is logging in: a local administrator (no user) or a realm user. */
export interface LoginSubject {
  username: string;
  realm: string;
  client: string;
  user?: ResolvedUser | undefined;
}

function request(rt: Runtime, s: LoginSubject, action: string): MatchRequest & { action: string } {
  return {
    scope: 'webui',
    action,
    user: s.username,
    realm: s.realm,
    ...(s.user ? { resolver: s.user.resolver } : {}),
    client: s.client,
    servicenode: rt.node,
    time: rt.clock(),
    conditionData: s.user ? { userinfo: s.user.info } : {},
    conditionSections: ['userinfo'],
  };
}

/** The single value of a webui action for the subject (conflicting values → 303), or undefined. */
async function value(rt: Runtime, s: LoginSubject, action: string): Promise<string | undefined> {
  const set = await compiledPolicies(rt);
  if (!set.hasActive('webui')) return undefined;
  return set.actionValue(request(rt, s, action));
}

async function isSet(rt: Runtime, s: LoginSubject, action: string): Promise<boolean> {
  const set = await compiledPolicies(rt);
  return set.hasActive('webui') && set.isSet(request(rt, s, action));
}

/** How a realm user's password is checked: against the user store (default), by the user's tokens, or not at all. */
export async function loginMode(rt: Runtime, s: LoginSubject): Promise<LoginMode> {
  const v = await value(rt, s, 'login_mode');
  return v === 'privacyIDEA' || v === 'disable' ? v : 'userstore';
}

function positiveInt(rt: Runtime, action: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (/^\d+$/.test(v.trim()) && Number(v) > 0) return Number(v);
  rt.log.warn({ action, value: v }, 'webui policy value is not a positive whole number; default used');
  return undefined;
}

/** Seconds the login token is valid: webui jwt_validity, else security.jwt_validity of the configuration. */
export async function jwtValidity(rt: Runtime, s: LoginSubject): Promise<number> {
  return (
    positiveInt(rt, 'jwt_validity', await value(rt, s, 'jwt_validity')) ?? rt.config.security.jwtValidity
  );
}

/** The web UI settings of the /auth answer: the defaults, changed by the webui policies matching the subject. */
export async function webuiSettings(rt: Runtime, s: LoginSubject): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { ...WEBUI_DEFAULTS };
  const set = await compiledPolicies(rt);
  if (!set.hasActive('webui')) return out;
  for (const [key, action, kind] of SETTINGS) {
    if (kind === 'bool' || kind === 'node') {
      if (await isSet(rt, s, action)) out[key] = kind === 'node' ? rt.node : true;
      continue;
    }
    const v = await value(rt, s, action);
    if (v === undefined) continue;
    if (kind === 'int') {
      const n = positiveInt(rt, action, v);
      if (n !== undefined) out[key] = n;
    } else {
      out[key] = v;
    }
  }
  return out;
}

/** The subject of a caller that has logged in. */
export function subjectOf(caller: Caller, user?: ResolvedUser): LoginSubject {
  return { username: caller.username, realm: caller.realm, client: caller.client, user };
}
