// The row types of every table, as Kysely sees them. Times are ISO-8601 UTC strings (portable and
// ordered as text on every dialect); booleans are 0/1 integers.
import type { ColumnType, Generated } from 'kysely';

export interface AdminTable {
  name: string;
  password_hash: string;
  created_at: string;
  /** JWTs issued before this time (compared in whole seconds) are refused: creation, password change, logout (default: the epoch). */
  sessions_valid_after: Generated<string>;
  /**
   * An imported privacyIDEA administrator's PI_PEPPER, sealed: the hash is of pepper + password
   * until the first login re-hashes it (then NULL, as for every hash authsrv made).
   */
  password_pepper: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The sessions of a realm user (administrator of a superuser realm or user) ended by `authsrv admin logout --realm`. */
export interface SessionRevocationTable {
  /** Lower case, as realms are stored. */
  realm: string;
  /** The login in lower case: a revocation covers every spelling of the name. */
  username: string;
  /** JWTs issued before this time (compared in whole seconds) are refused. */
  valid_after: string;
}

export interface ConfigTable {
  name: string;
  value: string;
  type: string;
  description: string;
}

export interface MetaTable {
  name: string;
  value: string;
}

export interface NodeTable {
  name: string;
  uuid: string;
  last_seen: string;
}

export interface AuditTable {
  id: Generated<number>;
  date: string;
  startdate: string;
  duration: number;
  action: string;
  success: number;
  authentication: string;
  serial: string;
  token_type: string;
  container_serial: string;
  container_type: string;
  user: string;
  realm: string;
  resolver: string;
  administrator: string;
  action_detail: string;
  info: string;
  node: string;
  policies: string;
  client: string;
  user_agent: string;
  user_agent_version: string;
  log_level: string;
  clearance_level: string;
  thread_id: string;
  /** Rows imported from another server (0025): where from ('privacyidea'); empty for authsrv's own. */
  imported_from: Generated<string>;
  /** The imported row's number in its source. */
  imported_number: Generated<string>;
  /** The source's signature of the imported row at import: verified, failed, not checked, old-format. */
  imported_check: Generated<string>;
  signature: string;
}

export interface ResolverTable {
  id: Generated<number>;
  name: string;
  type: string;
  /** JSON object of the resolver's settings; password-typed values sealed by the security module. */
  config: string;
  updated_at: string;
}

export interface RealmTable {
  id: Generated<number>;
  name: string;
  is_default: number;
}

export interface RealmResolverTable {
  realm_id: number;
  resolver_id: number;
  /** Lower is asked first; null sorts as 1000 (privacyIDEA's rule). */
  priority: number | null;
  /** Place in the list the realm was given: breaks ties between equal priorities. */
  position: number;
  /** '' for every node. */
  node: string;
}

export interface UserAttributeTable {
  id: Generated<number>;
  userid: string;
  resolver: string;
  realm: string;
  key: string;
  value: string;
  type: string;
}

/**
 * A policy. realm, adminrealm, adminuser, resolver, user, client, servicenode and user_agents are
 * JSON arrays of strings; action a JSON object (name → true | "value"); conditions a JSON list of
 * [section, key, comparator, value, active(, handle_missing_data)].
 */
export interface PolicyTable {
  id: Generated<number>;
  name: string;
  scope: string;
  action: string;
  realm: string;
  adminrealm: string;
  adminuser: string;
  resolver: string;
  user: string;
  client: string;
  /** '' when unrestricted. */
  time: string;
  priority: number;
  active: number;
  check_all_resolvers: number;
  /** privacyIDEA's pinode. */
  servicenode: string;
  user_agents: string;
  user_case_insensitive: number;
  description: string | null;
  conditions: string;
}

export interface TokenTable {
  id: Generated<number>;
  serial: string;
  tokentype: string;
  description: string;
  otplen: number;
  maxfail: number;
  failcount: number;
  /** HOTP: next counter to check; TOTP: last accepted time step (0 = none yet). */
  count: number;
  count_window: number;
  sync_window: number;
  active: number;
  revoked: number;
  locked: number;
  rollout_state: string;
  /** The seed or static password, sealed by the security module; '' = none. */
  key_enc: string;
  /** argon2id hash of the OTP PIN; '' = no PIN. */
  pin_hash: string;
}

export interface TokenInfoTable {
  id: Generated<number>;
  token_id: number;
  key: string;
  value: string;
  /** 'password' for values sealed by the security module. */
  type: string;
}

export interface TokenRealmTable {
  token_id: number;
  realm_id: number;
}

export interface TokenOwnerTable {
  token_id: number;
  resolver: string;
  user_id: string;
  realm_id: number;
}

export interface ChallengeTable {
  id: Generated<number>;
  transaction_id: string;
  serial: string;
  challenge: string;
  /** Type-specific JSON text. */
  data: string;
  session: string;
  /** ISO-8601 UTC. */
  timestamp: string;
  expiration: string;
  received_count: number;
  /** Answered (out of band or by a response): polltransaction reports it. */
  otp_valid: number;
}

/** A client application seen by /validate/check (GET /client/). */
export interface ClientsTable {
  id: Generated<number>;
  ip: string;
  /** '' when unknown (no reverse lookup is done). */
  hostname: string;
  /** The user-agent name: `PAM`, `privacyidea-cp`, … ('unknown' without a User-Agent). */
  clienttype: string;
  /** The full User-Agent header. */
  user_agent: string;
  node: string;
  /** ISO-8601 UTC. */
  lastseen: string;
}

/** A named group of tokens (/tokengroup/, reference 6.5). */
export interface TokenGroupTable {
  id: Generated<number>;
  name: string;
  description: string;
}

/** Membership of a token in a token group. */
export interface TokenGroupTokenTable {
  tokengroup_id: number;
  token_id: number;
}

/**
 * The failed logins counted by the brute-force throttling (src/core/throttle/): of an account from
 * one client address (kind `account`) or of a client address over all accounts (kind `address`).
 */
export interface LoginFailureTable {
  /** sha256 (hex) of the kind, the account and the address. */
  key: string;
  kind: 'account' | 'address';
  /** The account (login or `login@realm`, in lower case; `serial:…` for a check by serial), '' for kind address. */
  account: string;
  /** The client address. */
  address: string;
  /** Failures since the count last started (it starts again reset_after after the last one). */
  failures: number;
  /** ISO-8601 UTC. */
  last_failure: string;
  /** ISO-8601 UTC: attempts before this time are refused unchecked. */
  blocked_until: string;
}

/** A service ID (/serviceid/, reference 6.5): a name applspec tokens and SSH keys are used for. */
export interface ServiceIdTable {
  id: Generated<number>;
  name: string;
  description: string;
}

/** An SMTP server definition (/smtpserver/, reference 8.3). */
export interface SmtpServerTable {
  id: Generated<number>;
  identifier: string;
  server: string;
  port: number;
  username: string;
  /** Sealed by the security module; empty when none. */
  password: string;
  sender: string;
  /** 1: STARTTLS required. */
  tls: number;
  /** Seconds. */
  timeout: number;
  description: string;
  /** PEM CA certificate(s) to verify the server with; empty: the system's CAs. */
  cacertificate: string;
}

/** A machine resolver (/machineresolver/, reference 6.4): where machines are listed. */
export interface MachineResolverTable {
  id: Generated<number>;
  name: string;
  type: string;
  /** JSON object of the settings; password-typed values sealed by the security module. */
  config: string;
  updated_at: string;
}

/**
 * A token attached to a machine for an application (/machine/token, reference 6.4): the machine is
 * machine_id of the machine resolver machineresolver_id, or none (both null: any machine).
 */
export interface MachineTokenTable {
  id: Generated<number>;
  token_id: number;
  machineresolver_id: number | null;
  machine_id: string | null;
  application: string;
}

/** An option of a machine token (ssh: user, service_id). */
export interface MachineTokenOptionTable {
  id: Generated<number>;
  machinetoken_id: number;
  key: string;
  value: string;
}

/** An SMS gateway definition (/smsgateway/, reference 8.2): a provider module with options and headers. */
export interface SmsGatewayTable {
  id: Generated<number>;
  name: string;
  providermodule: string;
  description: string;
  updated_at: string;
}

/** An option (`type` option) or header (`type` header) of an SMS gateway; sealed values are encrypted. */
export interface SmsGatewayOptionTable {
  id: Generated<number>;
  gateway_id: number;
  type: string;
  key: string;
  value: string;
  sealed: number;
}

/** A RADIUS server definition (/radiusserver/, reference 8.4). */
/** A periodic task (/periodictask/); `nodes` is a comma list, `last_update` ISO-8601 UTC. */
export interface PeriodicTaskTable {
  id: Generated<number>;
  name: string;
  active: number;
  retry_if_failed: number;
  interval: string;
  nodes: string;
  taskmodule: string;
  ordering: number;
  last_update: string;
}

export interface PeriodicTaskOptionTable {
  id: Generated<number>;
  task_id: number;
  key: string;
  value: string;
}

/** A CA connector (/caconnector/, reference 8.5). */
export interface CaConnectorTable {
  id: Generated<number>;
  name: string;
  catype: string;
}

/** One configuration key of a CA connector; sealed values are encrypted. */
export interface CaConnectorConfigTable {
  id: Generated<number>;
  caconnector_id: number;
  key: string;
  value: string;
  sealed: number;
}

/** A certificate a CA connector revoked: upper-case hex serial, ISO-8601 UTC time. */
export interface CaRevokedTable {
  id: Generated<number>;
  caconnector_id: number;
  serial: string;
  revoked_at: string;
}

/** A node's last run of a task (ISO-8601 UTC); `running_since` '' when no run is under way. */
export interface PeriodicTaskLastRunTable {
  id: Generated<number>;
  task_id: number;
  node: string;
  timestamp: string;
  running_since: string;
}

/**
 * One value of a stats key (/monitoring/). `timestamp` is UTC, written as
 * `YYYY-MM-DD HH:MM:SS.ffffff`; PostgreSQL and MariaDB store it in a native column (timestamp(6),
 * datetime(6)), so it is read back through core/monitoring's dialect-aware expression, not as is.
 */
export interface MonitoringStatsTable {
  id: Generated<number>;
  stats_key: string;
  timestamp: string;
  /** bigint: PostgreSQL hands it over as text. */
  stats_value: number | string;
}

/** A GnuPG private key for PGP-encrypted token files; `private_key` sealed, its passphrase removed. */
export interface GpgKeyTable {
  id: Generated<number>;
  /** Long key id, 16 upper-case hex digits. */
  keyid: string;
  fingerprint: string;
  /** The key's user ids, newline-separated. */
  userids: string;
  public_armor: string;
  private_key: string;
  created_at: string;
}

/** A RADIUS client (NAS) of authsrv's own RADIUS server (issue 22). */
export interface RadiusClientTable {
  id: Generated<number>;
  name: string;
  /** An address or a subnet in CIDR notation, IPv4 or IPv6, normalised. */
  address: string;
  /** The shared secret, sealed by the security module. */
  secret: string;
  /** 1: requests without Message-Authenticator are dropped (BlastRADIUS, CVE-2024-3596). */
  require_message_authenticator: number;
  description: string;
}

export interface RadiusServerTable {
  id: Generated<number>;
  identifier: string;
  /** Host name or address. */
  server: string;
  port: number;
  /** The shared secret, sealed by the security module. */
  secret: string;
  description: string;
  /** Seconds to wait for an answer to each try. */
  timeout: number;
  /** Retransmissions after the first try. */
  retries: number;
}

/** An event handling definition (/event/, reference 7.1). */
export interface EventHandlerTable {
  id: Generated<number>;
  name: string;
  /** The event names, comma-separated. */
  events: string;
  handlermodule: string;
  action: string;
  ordering: number;
  /** pre or post. */
  position: string;
  /** JSON object: condition → value. */
  conditions: string;
  /** JSON object: option → value. */
  options: string;
  active: number;
}

/** A named counter of the Counter event handler module. */
export interface EventCounterTable {
  name: string;
  value: number | string | bigint;
}

export interface Database {
  admin: AdminTable;
  login_failure: LoginFailureTable;
  session_revocation: SessionRevocationTable;
  config: ConfigTable;
  meta: MetaTable;
  node: NodeTable;
  audit: AuditTable;
  resolver: ResolverTable;
  realm: RealmTable;
  realm_resolver: RealmResolverTable;
  user_attribute: UserAttributeTable;
  policy: PolicyTable;
  token: TokenTable;
  tokeninfo: TokenInfoTable;
  tokenrealm: TokenRealmTable;
  tokenowner: TokenOwnerTable;
  challenge: ChallengeTable;
  clients: ClientsTable;
  tokengroup: TokenGroupTable;
  tokengroup_token: TokenGroupTokenTable;
  serviceid: ServiceIdTable;
  machineresolver: MachineResolverTable;
  smtpserver: SmtpServerTable;
  machinetoken: MachineTokenTable;
  machinetoken_option: MachineTokenOptionTable;
  smsgateway: SmsGatewayTable;
  smsgateway_option: SmsGatewayOptionTable;
  radiusserver: RadiusServerTable;
  eventhandler: EventHandlerTable;
  eventcounter: EventCounterTable;
  periodictask: PeriodicTaskTable;
  periodictask_option: PeriodicTaskOptionTable;
  periodictask_lastrun: PeriodicTaskLastRunTable;
  monitoringstats: MonitoringStatsTable;
  gpgkey: GpgKeyTable;
  caconnector: CaConnectorTable;
  caconnectorconfig: CaConnectorConfigTable;
  carevoked: CaRevokedTable;
  radiusclient: RadiusClientTable;
}
