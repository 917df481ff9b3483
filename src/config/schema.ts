// Every configuration key the server knows, with its type, default and bounds. The loader validates
// the file and the AUTHSRV_* environment against this table, and a test keeps config/authsrv.toml
// documenting every key listed here.
import { hostname } from 'node:os';

export type KeyKind = 'string' | 'int' | 'bool' | 'list' | 'enum' | 'duration';

export interface KeySpec {
  key: string;
  kind: KeyKind;
  default: string | number | boolean | string[];
  min?: number;
  max?: number;
  values?: readonly string[];
}

export const CONFIG_KEYS: readonly KeySpec[] = [
  { key: 'node_name', kind: 'string', default: '' },
  { key: 'data_dir', kind: 'string', default: './data' },
  { key: 'database_url', kind: 'string', default: '' },
  { key: 'http.host', kind: 'string', default: '127.0.0.1' },
  { key: 'http.port', kind: 'int', default: 5000, min: 0, max: 65535 },
  { key: 'http.tls_cert', kind: 'string', default: '' },
  { key: 'http.tls_key', kind: 'string', default: '' },
  { key: 'http.trusted_proxies', kind: 'list', default: [] },
  { key: 'http.max_body_bytes', kind: 'int', default: 1_048_576, min: 1024, max: 104_857_600 },
  { key: 'http.workers', kind: 'int', default: 1, min: 0, max: 256 },
  { key: 'http.selfservice', kind: 'bool', default: false },
  { key: 'security.sign_responses', kind: 'bool', default: true },
  { key: 'security.jwt_validity', kind: 'int', default: 3600, min: 60, max: 604_800 },
  { key: 'security.superuser_realms', kind: 'list', default: [] },
  { key: 'security.key_password_file', kind: 'string', default: '' },
  { key: 'security.gnupg_home', kind: 'string', default: '' },
  { key: 'files.allowed_dirs', kind: 'list', default: ['/etc/authsrv'] },
  { key: 'files.max_bytes', kind: 'int', default: 10_485_760, min: 1024, max: 1_073_741_824 },
  { key: 'sms.scripts_dir', kind: 'string', default: '/etc/authsrv/sms-scripts' },
  { key: 'event.scripts_dir', kind: 'string', default: '/etc/authsrv/event-scripts' },
  { key: 'event.notification_dir', kind: 'string', default: '/var/lib/authsrv/notifications' },
  { key: 'audit.max_age', kind: 'duration', default: '' },
  { key: 'audit.max_rows', kind: 'int', default: 0, min: 0, max: Number.MAX_SAFE_INTEGER },
  { key: 'throttle.enabled', kind: 'bool', default: true },
  { key: 'throttle.free_failures', kind: 'int', default: 5, min: 0, max: 1_000_000 },
  { key: 'throttle.base_delay', kind: 'duration', default: '1s' },
  { key: 'throttle.max_delay', kind: 'duration', default: '1m' },
  { key: 'throttle.block_after', kind: 'int', default: 20, min: 1, max: 1_000_000 },
  { key: 'throttle.block_duration', kind: 'duration', default: '15m' },
  { key: 'throttle.reset_after', kind: 'duration', default: '12h' },
  { key: 'throttle.address_factor', kind: 'int', default: 5, min: 1, max: 1000 },
  { key: 'metrics.enabled', kind: 'bool', default: false },
  { key: 'metrics.listen', kind: 'string', default: '' },
  { key: 'metrics.token_file', kind: 'string', default: '' },
  { key: 'radius.listen', kind: 'string', default: '' },
  { key: 'radius.max_inflight', kind: 'int', default: 256, min: 1, max: 100_000 },
  { key: 'radius.throttle_by_calling_station_id', kind: 'bool', default: true },
  {
    key: 'log.level',
    kind: 'enum',
    default: 'info',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace'],
  },
];

export interface Config {
  nodeName: string;
  dataDir: string;
  databaseUrl: string;
  http: {
    host: string;
    port: number;
    tlsCert: string;
    tlsKey: string;
    trustedProxies: string[];
    maxBodyBytes: number;
    /** Worker processes of `authsrv serve`; 0 means one per CPU core (see resolveWorkers). */
    workers: number;
    /** Serve the self-service page at /selfservice/ (docs/selfservice.md). */
    selfservice: boolean;
  };
  security: {
    signResponses: boolean;
    jwtValidity: number;
    superuserRealms: string[];
    keyPasswordFile: string;
    gnupgHome: string;
  };
  files: {
    /**
     * Directories (or single files) besides the data directory whose files settings (resolvers'
     * files, CA files …) may name; only the configuration file sets them, never the API.
     */
    allowedDirs: string[];
    /** The largest such file read whole (a passwd file, a CA file), in bytes. */
    maxBytes: number;
  };
  /** SMS gateways (src/core/smsgateway): the only directory whose executables the script provider runs. */
  sms: { scriptsDir: string };
  /**
   * Event handlers (src/core/event): the only directory whose executables the Script module runs,
   * and the one the UserNotification module's savefile writes into.
   */
  event: { scriptsDir: string; notificationDir: string };
  audit: { maxAgeSeconds: number; maxRows: number };
  /** Brute-force throttling of /auth and the /validate checks (src/core/throttle/); durations in seconds. */
  throttle: {
    enabled: boolean;
    /** Failures of a key that cost no wait. */
    freeFailures: number;
    /** The wait after the first failure beyond the free ones; it doubles with each further failure. */
    baseDelay: number;
    /** The longest wait before the block. */
    maxDelay: number;
    /** From this many failures on, each failure blocks the key for blockDuration. */
    blockAfter: number;
    blockDuration: number;
    /** A key's failures are forgotten this long after its last failure. */
    resetAfter: number;
    /** A client address (over all accounts) gets this many times the free failures and block_after. */
    addressFactor: number;
  };
  /**
   * GET /metrics (src/core/metrics, docs/metrics.md): on a listener of its own (`listen`, the only
   * place it is served then) and/or behind a bearer token read from `tokenFile`.
   */
  metrics: { enabled: boolean; listen: { host: string; port: number } | undefined; tokenFile: string };
  /**
   * authsrv's own RADIUS server (src/radius-server, docs/radius.md): its UDP address, or off; and
   * how many datagrams it handles at once (beyond, new ones are dropped and counted); whether the
   * throttling counts a login against the end user's address in Calling-Station-Id (when it is an
   * IP address) rather than the NAS's.
   */
  radius: {
    listen: { host: string; port: number } | undefined;
    maxInflight: number;
    throttleByCallingStationId: boolean;
  };
  log: { level: string };
  /** Where the values came from, for `authsrv config` style diagnostics. */
  sourceFile: string | undefined;
}

export type FlatValues = Record<string, string | number | boolean | string[]>;

/** Builds the typed configuration from validated flat values. */
export function toConfig(v: FlatValues, sourceFile: string | undefined): Config {
  const s = (k: string) => v[k] as string;
  const n = (k: string) => v[k] as number;
  return {
    nodeName: s('node_name') || hostname(),
    dataDir: s('data_dir'),
    databaseUrl: s('database_url'),
    http: {
      host: s('http.host'),
      port: n('http.port'),
      tlsCert: s('http.tls_cert'),
      tlsKey: s('http.tls_key'),
      trustedProxies: v['http.trusted_proxies'] as string[],
      maxBodyBytes: n('http.max_body_bytes'),
      workers: n('http.workers'),
      selfservice: v['http.selfservice'] as boolean,
    },
    security: {
      signResponses: v['security.sign_responses'] as boolean,
      jwtValidity: n('security.jwt_validity'),
      superuserRealms: (v['security.superuser_realms'] as string[]).map((r) => r.toLowerCase()),
      keyPasswordFile: s('security.key_password_file'),
      gnupgHome: s('security.gnupg_home'),
    },
    files: { allowedDirs: v['files.allowed_dirs'] as string[], maxBytes: n('files.max_bytes') },
    sms: { scriptsDir: s('sms.scripts_dir') },
    event: { scriptsDir: s('event.scripts_dir'), notificationDir: s('event.notification_dir') },
    audit: { maxAgeSeconds: n('audit.max_age'), maxRows: n('audit.max_rows') },
    throttle: {
      enabled: v['throttle.enabled'] as boolean,
      freeFailures: n('throttle.free_failures'),
      baseDelay: n('throttle.base_delay'),
      maxDelay: n('throttle.max_delay'),
      blockAfter: n('throttle.block_after'),
      blockDuration: n('throttle.block_duration'),
      resetAfter: n('throttle.reset_after'),
      addressFactor: n('throttle.address_factor'),
    },
    metrics: {
      enabled: v['metrics.enabled'] as boolean,
      listen: hostPort(s('metrics.listen')),
      tokenFile: s('metrics.token_file'),
    },
    radius: {
      listen: hostPort(s('radius.listen')),
      maxInflight: n('radius.max_inflight'),
      throttleByCallingStationId: v['radius.throttle_by_calling_station_id'] as boolean,
    },
    log: { level: s('log.level') },
    sourceFile,
  };
}

/**
 * `host:port` (an IPv6 address in brackets, e.g. [::1]:9464) as host and port; '' is none. The
 * loader has checked the form (load.ts).
 */
export function hostPort(text: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  return { host: (m[1] ?? m[2]) as string, port: Number(m[3]) };
}
