// Every policy action, declared once (reference 5.5): the static table of each scope, plus what
// the token types bring. The definitions are a pure function of the two (definitionsFor): each
// token type declares the actions it contributes, and the actions that apply to every type
// (`enroll<TYPE>`, `<type>_otp_pin_minlength`, `<type>_max_token_per_user`, …) are generated here
// from the type list. The policy API (validation on write, GET /policy/defs), the rights of a
// login and the enforcement code all read the same definitions; a new action is one line here (or
// in its token type) plus the lines that use its value.

export type ActionType = 'bool' | 'str' | 'int' | 'text';

export interface ActionDef {
  readonly type: ActionType;
  readonly description: string;
  readonly group: string;
  /** The main menus of the web UI this right opens (admin and user scopes). */
  readonly mainmenu?: readonly string[];
  /** The values allowed for a `str` action; absent = free text. */
  readonly values?: readonly string[];
}

export const SCOPES = [
  'admin',
  'user',
  'authentication',
  'authorization',
  'enrollment',
  'webui',
  'register',
  'audit',
  'token',
  'container',
] as const;
export type Scope = (typeof SCOPES)[number];

type Table = Record<string, ActionDef>;

function bool(description: string, group: string, mainmenu?: readonly string[]): ActionDef {
  return mainmenu ? { type: 'bool', description, group, mainmenu } : { type: 'bool', description, group };
}
function str(description: string, group: string, values?: readonly string[]): ActionDef {
  return values ? { type: 'str', description, group, values } : { type: 'str', description, group };
}
function int(description: string, group: string): ActionDef {
  return { type: 'int', description, group };
}
function text(description: string, group: string): ActionDef {
  return { type: 'text', description, group };
}

/** How token types declare their actions. */
export { bool as boolAction, int as intAction, str as strAction };

const TOKENS = ['tokens'];
const USERS = ['users'];
const MACHINES = ['machines'];
const CONFIG = ['config'];
const AUDIT = ['audit'];
const COMPONENTS = ['components'];

// Actions shared by the admin and the user scope (marked † in reference 5.5). Order matters: the
// boolean ones with a main menu, in this order, are the rights an unrestricted caller holds.
const SHARED_TOKEN_ACTIONS: Table = {
  enable: bool('Enable a token.', 'token', TOKENS),
  disable: bool('Disable a token.', 'token', TOKENS),
};

const ADMIN: Table = {
  ...SHARED_TOKEN_ACTIONS,
  set: bool('Set token properties (count window, sync window, max fail, …).', 'token', TOKENS),
  setdescription: bool('Set the description of a token.', 'token', TOKENS),
  setpin: bool('Set the OTP PIN of a token.', 'token', TOKENS),
  setrandompin: bool('Set a random OTP PIN for a token.', 'token', TOKENS),
  settokeninfo: bool('Set tokeninfo values of a token.', 'token', TOKENS),
  enrollpin: bool('Set the OTP PIN during enrollment.', 'enrollment', TOKENS),
  resync: bool('Resynchronize a token.', 'token', TOKENS),
  reset: bool('Reset the failcounter of a token.', 'token', TOKENS),
  revoke: bool('Revoke a token.', 'token', TOKENS),
  assign: bool('Assign a token to a user.', 'token', TOKENS),
  unassign: bool('Remove a token from its user.', 'token', TOKENS),
  delete: bool('Delete a token.', 'token', TOKENS),
  importtokens: bool('Import token files.', 'token', TOKENS),
  tokenrealms: bool('Set the realms of a token.', 'token', TOKENS),
  tokenlist: bool('List tokens (restricted to the realms of the matching policies).', 'token', TOKENS),
  tokengroups: bool('Set the token groups of a token.', 'token', TOKENS),
  getserial: bool('Look up the serial of a token by its OTP value.', 'token', TOKENS),
  copytokenpin: bool('Copy the OTP PIN from one token to another.', 'token', TOKENS),
  copytokenuser: bool('Copy the user from one token to another.', 'token', TOKENS),
  losttoken: bool('Mark a token as lost and issue a temporary replacement.', 'token', TOKENS),
  getchallenges: bool('List the open challenges.', 'token', TOKENS),
  triggerchallenge: bool('Trigger challenges via /validate/triggerchallenge.', 'token', TOKENS),
  userlist: bool('List users.', 'user', USERS),
  adduser: bool('Add users to editable resolvers.', 'user', USERS),
  updateuser: bool('Update users in editable resolvers.', 'user', USERS),
  deleteuser: bool('Delete users from editable resolvers.', 'user', USERS),
  machinelist: bool('List machines.', 'machine', MACHINES),
  manage_machine_tokens: bool('Attach tokens to machines and detach them.', 'machine', MACHINES),
  fetch_authentication_items: bool('Fetch authentication items of machines.', 'machine', MACHINES),
  getrandom: bool('Fetch random data from the server.', 'system', CONFIG),
  configread: bool('Read the system configuration.', 'system', CONFIG),
  configwrite: bool('Write the system configuration.', 'system', CONFIG),
  configdelete: bool('Delete system configuration entries.', 'system', CONFIG),
  system_documentation: bool('Read the system documentation.', 'system', CONFIG),
  policyread: bool('Read policies.', 'system', CONFIG),
  policywrite: bool('Write policies.', 'system', CONFIG),
  policydelete: bool('Delete policies.', 'system', CONFIG),
  resolverread: bool('Read user resolvers.', 'system', CONFIG),
  resolverwrite: bool('Write user resolvers.', 'system', CONFIG),
  resolverdelete: bool('Delete user resolvers.', 'system', CONFIG),
  mresolverread: bool('Read machine resolvers.', 'system', CONFIG),
  mresolverwrite: bool('Write machine resolvers.', 'system', CONFIG),
  mresolverdelete: bool('Delete machine resolvers.', 'system', CONFIG),
  caconnectorread: bool('Read CA connectors.', 'system', CONFIG),
  caconnectorwrite: bool('Write CA connectors.', 'system', CONFIG),
  caconnectordelete: bool('Delete CA connectors.', 'system', CONFIG),
  set_hsm_password: bool('Set the password of the security module.', 'system', CONFIG),
  smtpserver_read: bool('Read SMTP server definitions.', 'system', CONFIG),
  smtpserver_write: bool('Write SMTP server definitions.', 'system', CONFIG),
  radiusserver_read: bool('Read RADIUS server definitions.', 'system', CONFIG),
  radiusserver_write: bool('Write RADIUS server definitions.', 'system', CONFIG),
  radiusclient_read: bool("Read the RADIUS clients (NAS) of authsrv's RADIUS server.", 'system', CONFIG),
  radiusclient_write: bool("Write the RADIUS clients (NAS) of authsrv's RADIUS server.", 'system', CONFIG),
  privacyideaserver_read: bool('Read remote server definitions.', 'system', CONFIG),
  privacyideaserver_write: bool('Write remote server definitions.', 'system', CONFIG),
  periodictask_read: bool('Read periodic tasks.', 'system', CONFIG),
  periodictask_write: bool('Write periodic tasks.', 'system', CONFIG),
  eventhandling_read: bool('Read event handler definitions.', 'system', CONFIG),
  eventhandling_write: bool('Write event handler definitions.', 'system', CONFIG),
  smsgateway_read: bool('Read SMS gateway definitions.', 'system', CONFIG),
  smsgateway_write: bool('Write SMS gateway definitions.', 'system', CONFIG),
  tokengroup_list: bool('List token groups.', 'system', CONFIG),
  tokengroup_add: bool('Add token groups.', 'system', CONFIG),
  tokengroup_delete: bool('Delete token groups.', 'system', CONFIG),
  serviceid_list: bool('List service IDs.', 'system', CONFIG),
  serviceid_add: bool('Add service IDs.', 'system', CONFIG),
  serviceid_delete: bool('Delete service IDs.', 'system', CONFIG),
  auditlog: bool('Read the audit log.', 'system', AUDIT),
  auditlog_download: bool('Download the audit log as CSV.', 'system', AUDIT),
  clienttype: bool('List the client types that authenticated.', 'system', COMPONENTS),
  statistics_read: bool('Read the monitoring statistics.', 'system', COMPONENTS),
  statistics_delete: bool('Delete monitoring statistics.', 'system', COMPONENTS),
  managesubscription: bool('Manage subscriptions.', 'system', COMPONENTS),
  // Valued actions of the admin scope; none of them is a right of its own.
  set_custom_user_attributes: str(
    "Custom user attributes that may be set: ':key:' value1 value2 (values '*' = any).",
    'user',
  ),
  delete_custom_user_attributes: str(
    'Custom user attributes that may be deleted (space separated, * = all).',
    'user',
  ),
  hide_tokeninfo: str('Tokeninfo keys hidden in token listings (space separated).', 'token'),
  auditlog_age: str('Only show audit entries younger than this age (e.g. 30d, 12h).', 'system'),
  hide_audit_columns: str('Audit columns hidden from the caller (space separated).', 'system'),
  otp_pin_maxlength: int('The maximum length of the OTP PIN.', 'pin'),
  otp_pin_minlength: int('The minimum length of the OTP PIN.', 'pin'),
  otp_pin_contents: str(
    'Character classes of the OTP PIN: c, n, s (each required), +cn (one of them), -ns (not these), [chars] (only these).',
    'pin',
  ),
  otp_pin_set_random: int('Length of the random OTP PIN set by setrandompin.', 'pin'),
  container_info: bool('Set container info values.', 'container'),
  container_create: bool('Create containers.', 'container'),
  container_delete: bool('Delete containers.', 'container'),
  container_list: bool('List containers.', 'container'),
  container_description: bool('Set the description of a container.', 'container'),
  container_state: bool('Set the state of a container.', 'container'),
  container_add_token: bool('Add tokens to a container.', 'container'),
  container_remove_token: bool('Remove tokens from a container.', 'container'),
  container_assign_user: bool('Assign a container to a user.', 'container'),
  container_unassign_user: bool('Remove a container from its user.', 'container'),
  container_realms: bool('Set the realms of a container.', 'container'),
  container_template_create: bool('Create container templates.', 'container'),
  container_template_delete: bool('Delete container templates.', 'container'),
  container_template_list: bool('List container templates.', 'container'),
};

const USER: Table = {
  ...SHARED_TOKEN_ACTIONS,
  setdescription: ADMIN.setdescription as ActionDef,
  setpin: ADMIN.setpin as ActionDef,
  setrandompin: ADMIN.setrandompin as ActionDef,
  enrollpin: ADMIN.enrollpin as ActionDef,
  resync: ADMIN.resync as ActionDef,
  reset: ADMIN.reset as ActionDef,
  revoke: ADMIN.revoke as ActionDef,
  assign: ADMIN.assign as ActionDef,
  unassign: ADMIN.unassign as ActionDef,
  delete: ADMIN.delete as ActionDef,
  userlist: bool('See the own user details.', 'user', USERS),
  updateuser: bool('Update the own user details in an editable resolver.', 'user', USERS),
  auditlog: bool('Read the own audit entries.', 'system', AUDIT),
  password_reset: bool('Reset the own password in an editable resolver.', 'user', USERS),
  set_custom_user_attributes: ADMIN.set_custom_user_attributes as ActionDef,
  delete_custom_user_attributes: ADMIN.delete_custom_user_attributes as ActionDef,
  hide_tokeninfo: ADMIN.hide_tokeninfo as ActionDef,
  auditlog_age: ADMIN.auditlog_age as ActionDef,
  hide_audit_columns: ADMIN.hide_audit_columns as ActionDef,
  otp_pin_maxlength: ADMIN.otp_pin_maxlength as ActionDef,
  otp_pin_minlength: ADMIN.otp_pin_minlength as ActionDef,
  otp_pin_contents: ADMIN.otp_pin_contents as ActionDef,
  otp_pin_set_random: ADMIN.otp_pin_set_random as ActionDef,
  container_info: ADMIN.container_info as ActionDef,
  container_create: ADMIN.container_create as ActionDef,
  container_delete: ADMIN.container_delete as ActionDef,
  container_list: ADMIN.container_list as ActionDef,
  container_description: ADMIN.container_description as ActionDef,
  container_state: ADMIN.container_state as ActionDef,
  container_add_token: ADMIN.container_add_token as ActionDef,
  container_remove_token: ADMIN.container_remove_token as ActionDef,
  container_assign_user: ADMIN.container_assign_user as ActionDef,
  container_unassign_user: ADMIN.container_unassign_user as ActionDef,
};

const AUTHENTICATION: Table = {
  otppin: str('How the OTP PIN is checked.', 'tools', ['tokenpin', 'userstore', 'none']),
  challenge_response: str('Token types that may do challenge-response (space separated).', 'tools'),
  challenge_text: str('Text shown for a challenge.', 'tools'),
  challenge_text_header: str('Header of the challenge text when several tokens are triggered.', 'tools'),
  challenge_text_footer: str('Footer of the challenge text when several tokens are triggered.', 'tools'),
  passthru: str(
    "Authenticate against the user store ('userstore') or a RADIUS server (its id) when the user has no token.",
    'setting actions',
  ),
  passthru_assign: str(
    'Assign a token on passthru authentication: prepend|append:<otp length>.',
    'setting actions',
  ),
  passOnNoToken: bool('Succeed when the user has no token.', 'setting actions'),
  passOnNoUser: bool('Succeed when the user does not exist.', 'setting actions'),
  mangle: str(
    'Rewrite the request user, realm or resolver: <attribute>/<regex>/<replacement>/.',
    'setting actions',
  ),
  set_realm: str('Rewrite the realm of the request.', 'setting actions'),
  reset_all_user_tokens: bool(
    'On success reset the failcounter of all tokens of the user.',
    'setting actions',
  ),
  increase_failcounter_on_challenge: bool('Increase the failcounter when a challenge is triggered.', 'tools'),
  auth_cache: str('Cache successful authentications: <duration>[/<duration>|/<count>].', 'setting actions'),
  preferred_client_mode: str('Order of preferred client modes (interactive poll u2f webauthn).', 'tools'),
  force_challenge_response: bool('Only accept a PIN-triggered challenge-response, never PIN+OTP.', 'tools'),
  client_mode_per_user: bool('Remember the last used client mode per user.', 'tools'),
  hide_specific_error_message: bool(
    'Answer every failed check and refused login alike (Authentication failed.); the reason only in the audit.',
    'tools',
  ),
  disabled_token_types: str('Token types that may not authenticate (space separated).', 'tools'),
  change_pin_via_validate: bool('Allow PIN changes during authentication.', 'tools'),
  resync_via_multichallenge: bool('Resynchronize a token via a second challenge.', 'tools'),
  enroll_via_multichallenge: str(
    'Token type enrolled during authentication when the user has none.',
    'tools',
  ),
  enroll_via_multichallenge_text: str('Text shown when enrolling during authentication.', 'tools'),
  enroll_via_multichallenge_template: str('Template used when enrolling during authentication.', 'tools'),
  enroll_via_multichallenge_optional: bool(
    'The user may skip the enrollment during authentication.',
    'tools',
  ),
  enroll_via_multichallenge_passkey_offline: bool(
    'A passkey enrolled during authentication may be used offline.',
    'tools',
  ),
  smstext: str('Text of the SMS: {otp}, {user}, … are replaced.', 'SMS'),
  smsautosend: bool('Send a new SMS after a successful authentication.', 'SMS'),
  sms_challenge_text: str('Challenge text of SMS tokens.', 'SMS'),
  emailtext: str('Body of the e-mail: {otp}, {user}, … are replaced.', 'Email'),
  emailsubject: str('Subject of the e-mail.', 'Email'),
  email_challenge_text: str('Challenge text of e-mail tokens.', 'Email'),
  webauthn_relying_party_id: str('Relying party id of WebAuthn tokens.', 'WebAuthn'),
  user_verification_requirement: str('WebAuthn user verification.', 'WebAuthn', [
    'required',
    'preferred',
    'discouraged',
  ]),
};

const AUTHORIZATION: Table = {
  authorized: str('Grant or deny access to matching users.', 'modifier', ['grant_access', 'deny_access']),
  application_tokentype: bool('The application may choose the token type (parameter type).', 'modifier'),
  auth_max_success: str(
    'Maximum successful authentications in a period: <n>/<period>, e.g. 3/5m.',
    'conditions',
  ),
  auth_max_fail: str('Maximum failed authentications in a period: <n>/<period>.', 'conditions'),
  last_auth: str('The token must have authenticated within this duration, e.g. 12h.', 'conditions'),
  tokentype: str('Token types that may authenticate (space separated).', 'modifier'),
  serial: str('Regular expression the serial of the token must match.', 'modifier'),
  tokeninfo: str('Tokeninfo the token must have: <key>/<regex>/.', 'modifier'),
  setrealm: str('Realm the user is rewritten to.', 'conditions'),
  no_detail_on_success: bool('No detail in a successful response.', 'response'),
  no_detail_on_fail: bool('No detail in a failed response.', 'response'),
  add_user_in_response: bool('Add the user to the detail of a successful response.', 'response'),
  add_resolver_in_response: bool('Add the resolver to the detail of a successful response.', 'response'),
  radius_reply: str(
    "Reply attributes of authsrv's RADIUS server on Access-Accept: <Attribute>=<value>; … with Class, Filter-Id, Session-Timeout, Reply-Message; {name} in a value is the user's attribute name.",
    'response',
  ),
  api_key_required: bool('/validate requests need an authorization token.', 'modifier'),
  require_auth_for_resolver_details: bool('Resolver details only for authenticated callers.', 'modifier'),
};

const ENROLLMENT: Table = {
  max_token_per_realm: int('Maximum number of tokens in the realm.', 'token'),
  max_token_per_user: int('Maximum number of tokens of a user.', 'token'),
  max_active_token_per_user: int('Maximum number of active tokens of a user.', 'token'),
  require_description: str('Token types that need a description on enrollment (space separated).', 'token'),
  otp_pin_random: int('Set a random OTP PIN of this length on enrollment.', 'OTP PIN'),
  pinhandling: str('Module that handles a random PIN (e.g. sends it).', 'OTP PIN'),
  change_pin_on_first_use: bool('The user must change the PIN on first use.', 'OTP PIN'),
  change_pin_every: str('The user must change the PIN in this interval, e.g. 90d.', 'OTP PIN'),
  encrypt_pin: bool('Store the PIN encrypted instead of hashed.', 'OTP PIN'),
  tokenlabel: str('Label of the enrollment QR code ({user}, {realm}, {serial} replaced).', 'token'),
  tokenissuer: str('Issuer of the enrollment QR code.', 'token'),
  appimageurl: str('Image URL shown in the authenticator app.', 'token'),
  autoassignment: str('Assign an unowned token on first authentication.', 'token', ['any_pin', 'userstore']),
  losttoken_PW_length: int('Length of the password of a lost-token replacement.', 'token'),
  losttoken_PW_contents: str('Characters of the password of a lost-token replacement.', 'token'),
  losttoken_valid: int('Days a lost-token replacement is valid.', 'token'),
  email_validation: str('Module that validates e-mail addresses of e-mail tokens.', 'token'),
  verify_enrollment: str(
    'Token types whose enrollment must be verified with an OTP (space separated).',
    'token',
  ),
};

const WEBUI: Table = {
  login_mode: str(
    'How users of the realms log in: password of the user store, their tokens, or not at all.',
    'login',
    ['userstore', 'privacyIDEA', 'disable'],
  ),
  remote_user: str('Accept REMOTE_USER from the web server.', 'login', ['allowed', 'disable', 'force']),
  jwt_validity: int('Validity of the login token in seconds.', 'login'),
  logout_time: int('Idle time in seconds before the web UI logs out.', 'webui'),
  timeout_action: str('What the web UI does after the idle time.', 'webui', ['logout', 'lockscreen']),
  token_page_size: int('Tokens per page.', 'webui'),
  user_page_size: int('Users per page.', 'webui'),
  audit_page_size: int('Audit entries per page.', 'webui'),
  tokenwizard: bool('Users without tokens see the enrollment wizard.', 'webui'),
  tokenwizard_2nd_token: bool('The wizard is also shown to users with one token.', 'webui'),
  dialog_no_token: bool('Show a dialog to users without tokens.', 'webui'),
  default_tokentype: str('Token type preselected in the enrollment dialog.', 'webui'),
  realm_dropdown: str('Realms offered on the login page (space separated).', 'login'),
  search_on_enter: bool('Search only when Enter is pressed.', 'webui'),
  user_details: bool('Show user details in the token list.', 'webui'),
  hide_welcome_info: bool('Hide the welcome dialog.', 'webui'),
  hide_buttons: bool('Hide buttons the caller may not use.', 'webui'),
  deletion_confirmation: bool('Confirm deletions.', 'webui'),
  show_seed: bool('Show the seed on enrollment.', 'webui'),
  show_node: bool('Show the node name.', 'webui'),
  login_text: str('Text shown on the login page.', 'login'),
  custom_menu: str('Template of a custom menu.', 'webui'),
  custom_baseline: str('Template of a custom baseline.', 'webui'),
  policy_template_url: str('URL of policy templates.', 'webui'),
  logout_redirect: str('URL the browser goes to after logout.', 'webui'),
  privacy_statement_link: str('Link to the privacy statement.', 'login'),
  admin_dashboard: bool('Show the admin dashboard.', 'webui'),
  token_rollover: str('Token types that may be rolled over (space separated).', 'webui'),
  rss_feeds: str('RSS feeds shown on the dashboard.', 'webui'),
  rss_age: int('Age in days of RSS entries shown.', 'webui'),
  show_android_privacyidea_authenticator: bool('Show the Android authenticator QR code.', 'webui'),
  show_ios_privacyidea_authenticator: bool('Show the iOS authenticator QR code.', 'webui'),
  show_custom_authenticator: str('URL of a custom authenticator app.', 'webui'),
  passkey_login: str('Offer passkey login on the login page.', 'login', ['show', 'hide']),
};

const REGISTER: Table = {
  realm: str('Realm new users are registered in.', 'register'),
  resolver: str('Resolver new users are created in.', 'register'),
  smtpconfig: str('SMTP server that sends the registration e-mail.', 'register'),
  requiredemail: str('Regular expression the e-mail address must match, e.g. /.*@example.com/.', 'register'),
  registration_body: text('Body of the registration e-mail.', 'register'),
  hide_specific_error_message: bool('Answer failed registrations with a generic message.', 'register'),
};

const TOKEN: Table = {
  require_description_on_edit: str(
    'Token types that need a description when edited (space separated).',
    'token',
  ),
  hide_specific_error_message_for_ttype: bool(
    'Answer errors of the token type endpoints (/ttype/<type>) with a generic message (accepted; no such endpoint yet).',
    'token',
  ),
  hide_specific_error_message_for_offline_refill: bool(
    'Answer every failed refill of an offline token with a generic message.',
    'token',
  ),
};

const CONTAINER: Table = {
  container_registration_ttl: int('Minutes a container registration QR code is valid.', 'registration'),
  container_registration_ssl_verify: str(
    'Whether the client verifies the server certificate.',
    'registration',
    ['True', 'False'],
  ),
  container_challenge_ttl: int('Minutes a container challenge is valid.', 'synchronization'),
  container_server_url: str('Server URL the container client talks to.', 'registration'),
  container_client_rollover: bool('The client may roll over the container.', 'synchronization'),
  container_initial_token_transfer: bool(
    'Transfer tokens to the container at first synchronization.',
    'synchronization',
  ),
  container_disable_client_token_deletion: bool('The client may not delete tokens.', 'synchronization'),
  container_disable_client_container_unregister: bool(
    'The client may not unregister the container.',
    'synchronization',
  ),
};

const STATIC: Record<Scope, Table> = {
  admin: ADMIN,
  user: USER,
  authentication: AUTHENTICATION,
  authorization: AUTHORIZATION,
  enrollment: ENROLLMENT,
  webui: WEBUI,
  register: REGISTER,
  audit: {},
  token: TOKEN,
  container: CONTAINER,
};

/** Actions per scope, as a token type (or another plug-in) contributes them. */
export type ScopedActions = Partial<Record<Scope, Readonly<Record<string, ActionDef>>>>;

/** What the definitions read of a token type (src/tokens/token-type.ts implements it). */
export interface TokenTypeActions {
  /** The lower-case type name, which names the per-type actions (`hotp_otp_pin_minlength`). */
  readonly type: string;
  readonly description: string;
  /** The right to enroll the type (`enrollHOTP`). */
  readonly enrollAction: string;
  /** Whether the user scope holds the enroll right too. */
  readonly userEnrollable: boolean;
  /** The actions the type itself reads (`hotp_hashlib`, `pw.length`, …), per scope. */
  readonly policyActions: ScopedActions;
}

/** `enroll<TYPE>` in the admin scope, and in the user scope where users may enroll the type. */
function enrollRight(t: TokenTypeActions): ScopedActions {
  const right = { [t.enrollAction]: bool(`Enroll ${t.description}`, 'enrollment', TOKENS) };
  return t.userEnrollable ? { admin: right, user: right } : { admin: right };
}

/**
 * The actions the token service applies to every type, named after it: the PIN rules of the
 * admin and user scopes (src/core/token/pin-policy.ts) and the token limits of the enrollment
 * scope (src/core/token/enrollment-limits.ts).
 */
function everyTypeActions(type: string): ScopedActions {
  const pin: Table = {
    [`${type}_otp_pin_minlength`]: int(`The minimum length of the OTP PIN of ${type} tokens.`, 'pin'),
    [`${type}_otp_pin_maxlength`]: int(`The maximum length of the OTP PIN of ${type} tokens.`, 'pin'),
    [`${type}_otp_pin_contents`]: str(
      `Character classes the OTP PIN of ${type} tokens must contain (c, n, s, +/- prefix, or [chars]).`,
      'pin',
    ),
  };
  return {
    admin: pin,
    user: pin,
    enrollment: {
      [`${type}_max_token_per_user`]: int(`Maximum number of ${type} tokens of a user.`, 'token'),
      [`${type}_max_active_token_per_user`]: int(
        `Maximum number of active ${type} tokens of a user.`,
        'token',
      ),
    },
  };
}

/** The definitions every policy decision reads; see definitionsFor. */
export interface PolicyDefinitions {
  /** The actions of a scope in declaration order; {} for an unknown scope. */
  actionsOf(scope: string): Readonly<Record<string, ActionDef>>;
  actionDef(scope: string, action: string): ActionDef | undefined;
  isKnownAction(scope: string, action: string): boolean;
  /**
   * The rights a caller of the scope can hold (reference 2.4): every action name of the scope. A
   * caller whose scope has no active policy holds them all.
   */
  rightCandidates(scope: 'admin' | 'user'): string[];
  /**
   * What GET /policy/defs[/<scope>] answers (reference 5.6): without a scope every scope mapped to
   * its actions; with a scope just that inner object; `conditions` gives sections and comparators.
   * The `servicenodes`/`pinodes` pseudo-scopes need the node list and are answered by the caller.
   * An unknown scope yields an empty object, as privacyIDEA does.
   */
  defsForApi(scope?: string): Record<string, unknown>;
}

/**
 * The definitions of the static table and these token types: per scope the static actions, then
 * every type's enroll right, the actions the types declare, and the actions of every type. An
 * action is declared once: a static one is never overridden, and of two contributions of one
 * name the first stays.
 */
export function definitionsFor(types: readonly TokenTypeActions[]): PolicyDefinitions {
  const contributions = [
    ...types.map(enrollRight),
    ...types.map((t) => t.policyActions),
    ...types.map((t) => everyTypeActions(t.type)),
  ];
  const tables = Object.fromEntries(
    SCOPES.map((scope) => {
      const table: Table = { ...STATIC[scope] };
      for (const c of contributions) {
        for (const [name, def] of Object.entries(c[scope] ?? {}))
          if (!Object.hasOwn(table, name)) table[name] = def;
      }
      return [scope, table];
    }),
  ) as Record<Scope, Table>;
  const actionsOf = (scope: string): Readonly<Table> => (isScope(scope) ? tables[scope] : {});
  const actionDef = (scope: string, action: string): ActionDef | undefined => {
    const table = actionsOf(scope);
    return Object.hasOwn(table, action) ? table[action] : undefined;
  };
  const apiTable = (scope: string) =>
    Object.fromEntries(Object.entries(actionsOf(scope)).map(([k, d]) => [k, apiDef(d)]));
  return {
    actionsOf,
    actionDef,
    isKnownAction: (scope, action) => actionDef(scope, action) !== undefined,
    rightCandidates: (scope) => Object.keys(tables[scope]),
    defsForApi(scope) {
      if (scope === 'conditions') return conditionDefs();
      if (scope !== undefined) return apiTable(scope);
      return Object.fromEntries(SCOPES.map((s) => [s, apiTable(s)]));
    },
  };
}

export function scopes(): readonly Scope[] {
  return SCOPES;
}

export function isScope(scope: string): scope is Scope {
  return (SCOPES as readonly string[]).includes(scope);
}

/** The static table of one scope (no token type's actions), in declaration order. */
export function staticActions(scope: Scope): Readonly<Record<string, ActionDef>> {
  return STATIC[scope];
}

/** The sections a condition may read (reference 5.4). */
export const CONDITION_SECTIONS: Readonly<Record<string, { description: string }>> = {
  userinfo: { description: 'An attribute of the user as the resolver returns it.' },
  tokeninfo: { description: 'A tokeninfo value of the token of the request.' },
  token: { description: 'A column of the token of the request (serial, tokentype, active, count, …).' },
  'HTTP Request header': { description: 'A header of the HTTP request.' },
  'HTTP Environment': { description: 'A value of the HTTP environment (e.g. REMOTE_ADDR, REQUEST_METHOD).' },
  container: { description: 'A property of the container of the request.' },
  container_info: { description: 'A container info value of the container of the request.' },
  'Request Data': { description: 'A request parameter (pass and password are never visible).' },
};

export const CONDITION_COMPARATORS: Readonly<Record<string, { description: string }>> = {
  equals: { description: 'The value equals the given value.' },
  '!equals': { description: 'The value does not equal the given value.' },
  contains: { description: 'The list value contains the given value.' },
  '!contains': { description: 'The list value does not contain the given value.' },
  matches: { description: 'The value matches the given regular expression (whole value).' },
  '!matches': { description: 'The value does not match the given regular expression.' },
  in: { description: 'The value is one of the given comma-separated values.' },
  '!in': { description: 'The value is none of the given comma-separated values.' },
  '<': { description: 'The value is numerically smaller than the given value.' },
  '>': { description: 'The value is numerically greater than the given value.' },
  date_before: { description: 'The date value is before the given date.' },
  date_after: { description: 'The date value is after the given date.' },
  date_within_last: {
    description: 'The date value lies within the given duration before now (e.g. 5d, 2h).',
  },
  '!date_within_last': { description: 'The date value does not lie within the given duration before now.' },
  string_contains: { description: 'The string value contains the given substring.' },
  '!string_contains': { description: 'The string value does not contain the given substring.' },
};

export const HANDLE_MISSING_DATA: Readonly<Record<string, { description: string }>> = {
  raise_error: { description: 'A missing value is a policy error (default).' },
  condition_is_true: { description: 'A missing value makes the condition true.' },
  condition_is_false: { description: 'A missing value makes the condition false.' },
};

export interface ApiActionDef {
  type: ActionType;
  desc: string;
  group: string;
  value?: string[];
  mainmenu?: string[];
}

function apiDef(d: ActionDef): ApiActionDef {
  const out: ApiActionDef = { type: d.type, desc: d.description, group: d.group };
  if (d.values) out.value = [...d.values];
  if (d.mainmenu) out.mainmenu = [...d.mainmenu];
  return out;
}

export function conditionDefs(): {
  sections: Record<string, { description: string }>;
  comparators: Record<string, { description: string }>;
  handle_missing_data: Record<string, { description: string }>;
} {
  return {
    sections: structuredClone({ ...CONDITION_SECTIONS }),
    comparators: structuredClone({ ...CONDITION_COMPARATORS }),
    handle_missing_data: structuredClone({ ...HANDLE_MISSING_DATA }),
  };
}
