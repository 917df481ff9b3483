// The boolean actions of the admin scope (reference 5.5) and the main menu each one opens. Until an
// active admin policy exists, an administrator holds all of them; the policy engine narrows that.

export type MainMenu = 'tokens' | 'users' | 'machines' | 'config' | 'audit' | 'components';

const BY_MENU: Record<MainMenu, readonly string[]> = {
  tokens: [
    'enable',
    'disable',
    'set',
    'setdescription',
    'setpin',
    'setrandompin',
    'settokeninfo',
    'enrollpin',
    'resync',
    'reset',
    'revoke',
    'assign',
    'unassign',
    'delete',
    'importtokens',
    'tokenrealms',
    'tokenlist',
    'tokengroups',
    'getserial',
    'copytokenpin',
    'copytokenuser',
    'losttoken',
    'getchallenges',
    'triggerchallenge',
  ],
  users: ['userlist', 'adduser', 'updateuser', 'deleteuser'],
  machines: ['machinelist', 'manage_machine_tokens', 'fetch_authentication_items'],
  config: [
    'getrandom',
    'configread',
    'configwrite',
    'configdelete',
    'system_documentation',
    'policyread',
    'policywrite',
    'policydelete',
    'resolverread',
    'resolverwrite',
    'resolverdelete',
    'mresolverread',
    'mresolverwrite',
    'mresolverdelete',
    'caconnectorread',
    'caconnectorwrite',
    'caconnectordelete',
    'set_hsm_password',
    'smtpserver_read',
    'smtpserver_write',
    'radiusserver_read',
    'radiusserver_write',
    'privacyideaserver_read',
    'privacyideaserver_write',
    'periodictask_read',
    'periodictask_write',
    'eventhandling_read',
    'eventhandling_write',
    'smsgateway_read',
    'smsgateway_write',
    'tokengroup_list',
    'tokengroup_add',
    'tokengroup_delete',
    'serviceid_list',
    'serviceid_add',
    'serviceid_delete',
  ],
  audit: ['auditlog', 'auditlog_download'],
  components: ['clienttype', 'statistics_read', 'statistics_delete', 'managesubscription'],
};

export const ADMIN_ACTIONS: readonly string[] = Object.values(BY_MENU).flat();

/** The boolean actions of the user scope (marked † in reference 5.5): what users may do to themselves. */
export const USER_ACTIONS: readonly string[] = [
  'enable',
  'disable',
  'setdescription',
  'setpin',
  'setrandompin',
  'enrollpin',
  'resync',
  'reset',
  'revoke',
  'assign',
  'unassign',
  'delete',
  'userlist',
  'updateuser',
  'auditlog',
  'password_reset',
];

/** The main menus opened by a set of rights, in the order the privacyIDEA web UI shows them. */
export function menusFor(rights: readonly string[]): MainMenu[] {
  const granted = new Set(rights);
  return (Object.keys(BY_MENU) as MainMenu[]).filter((m) => BY_MENU[m].some((a) => granted.has(a)));
}
