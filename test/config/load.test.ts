import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, envName, loadConfig, redactUrl } from '../../src/config/load.ts';
import { CONFIG_KEYS } from '../../src/config/schema.ts';

const EXAMPLE = join(import.meta.dirname, '../../config/authsrv.toml');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'authsrv-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(text: string): string {
  const path = join(dir, 'authsrv.toml');
  writeFileSync(path, text);
  return path;
}

/** The ConfigError thrown by `fn`, failing the test if there is none. */
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('uses the built-in defaults without a file or environment', () => {
    const c = loadConfig({ env: {} });
    expect(c.dataDir).toBe('./data');
    expect(c.databaseUrl).toBe('');
    expect(c.nodeName).toBe(hostname());
    expect(c.http).toEqual({
      host: '127.0.0.1',
      port: 5000,
      tlsCert: '',
      tlsKey: '',
      trustedProxies: [],
      maxBodyBytes: 1_048_576,
      workers: 1,
      selfservice: false,
    });
    expect(c.security).toEqual({
      signResponses: true,
      jwtValidity: 3600,
      superuserRealms: [],
      keyPasswordFile: '',
      gnupgHome: '',
    });
    expect(c.audit).toEqual({ maxAgeSeconds: 0, maxRows: 0 });
    expect(c.throttle).toEqual({
      enabled: true,
      freeFailures: 5,
      baseDelay: 1,
      maxDelay: 60,
      blockAfter: 20,
      blockDuration: 900,
      resetAfter: 43_200,
      addressFactor: 5,
    });
    expect(c.log.level).toBe('info');
    expect(c.sourceFile).toBeUndefined();
  });

  it('reads the throttling from the file and the environment, and refuses a cap below the base delay', () => {
    const c = loadConfig({
      file: file('[throttle]\nenabled = false\nbase_delay = "2s"\nmax_delay = "5m"\nblock_duration = "1h"\n'),
      env: { AUTHSRV_THROTTLE_BLOCK_AFTER: '7', AUTHSRV_THROTTLE_RESET_AFTER: '1d' },
    });
    expect(c.throttle).toMatchObject({
      enabled: false,
      baseDelay: 2,
      maxDelay: 300,
      blockAfter: 7,
      blockDuration: 3600,
      resetAfter: 86_400,
    });
    expect(configError(() => loadConfig({ env: { AUTHSRV_THROTTLE_BASE_DELAY: '2m' } })).message).toBe(
      'throttle.max_delay must not be shorter than throttle.base_delay',
    );
    expect(configError(() => loadConfig({ env: { AUTHSRV_THROTTLE_BLOCK_AFTER: '0' } })).message).toContain(
      'throttle.block_after',
    );
  });

  it('reads values from the file, top-level keys and sections', () => {
    const path = file(`
node_name = "node-a"
data_dir = "/var/lib/authsrv"
database_url = "postgres://authsrv@db.example:5432/authsrv"

[http]
host = "0.0.0.0"
port = 8443
trusted_proxies = ["10.0.0.1", "192.168.0.0/16", "fd00::/8"]
max_body_bytes = 2048

[security]
sign_responses = false
jwt_validity = 600
superuser_realms = ["Super", "admins"]

[audit]
max_age = "90d"
max_rows = 100000

[log]
level = "debug"
`);
    const c = loadConfig({ file: path, env: {} });
    expect(c.sourceFile).toBe(path);
    expect(c.nodeName).toBe('node-a');
    expect(c.dataDir).toBe('/var/lib/authsrv');
    expect(c.databaseUrl).toBe('postgres://authsrv@db.example:5432/authsrv');
    expect(c.http.host).toBe('0.0.0.0');
    expect(c.http.port).toBe(8443);
    expect(c.http.trustedProxies).toEqual(['10.0.0.1', '192.168.0.0/16', 'fd00::/8']);
    expect(c.http.maxBodyBytes).toBe(2048);
    expect(c.security.signResponses).toBe(false);
    expect(c.security.jwtValidity).toBe(600);
    expect(c.security.superuserRealms).toEqual(['super', 'admins']);
    expect(c.audit).toEqual({ maxAgeSeconds: 90 * 86_400, maxRows: 100_000 });
    expect(c.log.level).toBe('debug');
  });

  it('accepts dotted keys as well as sections', () => {
    const c = loadConfig({ file: file('http.port = 6000\n'), env: {} });
    expect(c.http.port).toBe(6000);
  });

  it('lets the environment override the file', () => {
    const path = file('[http]\nport = 8000\nhost = "0.0.0.0"\n[security]\nsign_responses = true\n');
    const c = loadConfig({
      file: path,
      env: {
        AUTHSRV_HTTP_PORT: '9000',
        AUTHSRV_SECURITY_SIGN_RESPONSES: 'off',
        AUTHSRV_HTTP_TRUSTED_PROXIES: '10.0.0.1, 10.1.0.0/16',
        AUTHSRV_AUDIT_MAX_AGE: '12h',
        AUTHSRV_NODE_NAME: 'from-env',
      },
    });
    expect(c.http.port).toBe(9000);
    expect(c.http.host).toBe('0.0.0.0');
    expect(c.security.signResponses).toBe(false);
    expect(c.http.trustedProxies).toEqual(['10.0.0.1', '10.1.0.0/16']);
    expect(c.audit.maxAgeSeconds).toBe(12 * 3600);
    expect(c.nodeName).toBe('from-env');
  });

  it('finds the file through AUTHSRV_CONFIG, and --config wins over it', () => {
    const viaEnv = file('node_name = "env-file"\n');
    expect(loadConfig({ env: { AUTHSRV_CONFIG: viaEnv } }).nodeName).toBe('env-file');
    const explicit = join(dir, 'other.toml');
    writeFileSync(explicit, 'node_name = "explicit"\n');
    expect(loadConfig({ file: explicit, env: { AUTHSRV_CONFIG: viaEnv } }).nodeName).toBe('explicit');
  });

  it('finds ./authsrv.toml in the working directory when nothing else names a file', () => {
    file('node_name = "cwd-file"\n');
    const before = process.cwd();
    process.chdir(dir);
    try {
      const c = loadConfig({ env: {} });
      expect(c.nodeName).toBe('cwd-file');
      expect(c.sourceFile).toBe('authsrv.toml');
      const other = join(dir, 'other.toml');
      writeFileSync(other, 'node_name = "env-file"\n');
      expect(loadConfig({ env: { AUTHSRV_CONFIG: other } }).nodeName).toBe('env-file');
    } finally {
      process.chdir(before);
    }
  });

  it('treats an empty AUTHSRV_CONFIG as unset', () => {
    expect(loadConfig({ env: { AUTHSRV_CONFIG: '' } }).sourceFile).toBeUndefined();
  });

  it('rejects an empty data_dir or http.host', () => {
    expect(configError(() => loadConfig({ env: { AUTHSRV_DATA_DIR: '' } })).message).toContain('data_dir');
    expect(configError(() => loadConfig({ overrides: { data_dir: ' ' }, env: {} })).message).toContain(
      'data_dir',
    );
    expect(configError(() => loadConfig({ env: { AUTHSRV_HTTP_HOST: '' } })).message).toContain('http.host');
  });

  it('reads files.allowed_dirs and files.max_bytes, and refuses an empty directory name', () => {
    expect(loadConfig({ env: {} }).files).toEqual({ allowedDirs: ['/etc/authsrv'], maxBytes: 10_485_760 });
    const c = loadConfig({
      file: file('[files]\nallowed_dirs = ["/srv/a", "rel"]\nmax_bytes = 2048\n'),
      env: {},
    });
    expect(c.files).toEqual({ allowedDirs: ['/srv/a', 'rel'], maxBytes: 2048 });
    const e = loadConfig({ env: { AUTHSRV_FILES_ALLOWED_DIRS: '/srv/a, /srv/b' } });
    expect(e.files.allowedDirs).toEqual(['/srv/a', '/srv/b']);
    expect(loadConfig({ env: { AUTHSRV_FILES_ALLOWED_DIRS: '' } }).files.allowedDirs).toEqual([]);
    expect(
      configError(() => loadConfig({ file: file('[files]\nallowed_dirs = [""]\n'), env: {} })).message,
    ).toBe('files.allowed_dirs must not hold an empty directory name');
    expect(configError(() => loadConfig({ env: { AUTHSRV_FILES_MAX_BYTES: '100' } })).message).toContain(
      'files.max_bytes (from AUTHSRV_FILES_MAX_BYTES) must be at least 1024',
    );
  });

  it('fails when the named file does not exist', () => {
    const missing = join(dir, 'missing.toml');
    expect(configError(() => loadConfig({ file: missing, env: {} })).message).toContain(missing);
  });

  it('lets --data-dir override both file and environment', () => {
    const path = file('data_dir = "/from/file"\n');
    const c = loadConfig({
      file: path,
      env: { AUTHSRV_DATA_DIR: '/from/env' },
      overrides: { data_dir: '/from/cli' },
    });
    expect(c.dataDir).toBe('/from/cli');
    expect(loadConfig({ file: path, env: { AUTHSRV_DATA_DIR: '/from/env' } }).dataDir).toBe('/from/env');
  });

  it('rejects an unknown key in the file, naming the key and the file', () => {
    const path = file('[http]\nprot = 5000\n');
    const e = configError(() => loadConfig({ file: path, env: {} }));
    expect(e.message).toContain('http.prot');
    expect(e.message).toContain(path);
  });

  it('rejects an unknown section in the file', () => {
    const path = file('[htp]\nport = 5000\n');
    expect(configError(() => loadConfig({ file: path, env: {} })).message).toContain('htp.port');
  });

  it('rejects a file that is not TOML, naming the file', () => {
    const path = file('[http\nport = 1\n');
    const e = configError(() => loadConfig({ file: path, env: {} }));
    expect(e.message).toContain(path);
    expect(e.message).toMatch(/not valid TOML/);
  });

  it.each([
    ['http.port = "5000"', 'http.port', /integer/],
    ['http.port = 50.5', 'http.port', /integer/],
    ['security.sign_responses = "yes"', 'security.sign_responses', /true or false/],
    ['node_name = 7', 'node_name', /string/],
    ['http.trusted_proxies = "10.0.0.1"', 'http.trusted_proxies', /list/],
    ['http.trusted_proxies = [1, 2]', 'http.trusted_proxies', /list/],
  ])('rejects a wrong type in the file: %s', (line, key, why) => {
    const path = file(`${line}\n`);
    const e = configError(() => loadConfig({ file: path, env: {} }));
    expect(e.message).toContain(key);
    expect(e.message).toMatch(why);
  });

  it.each([
    ['AUTHSRV_HTTP_PORT', 'five', 'http.port'],
    ['AUTHSRV_SECURITY_SIGN_RESPONSES', 'maybe', 'security.sign_responses'],
    ['AUTHSRV_SECURITY_JWT_VALIDITY', '1.5', 'security.jwt_validity'],
  ])('rejects a wrong type in %s, naming the key and the variable', (name, value, key) => {
    const e = configError(() => loadConfig({ env: { [name]: value } }));
    expect(e.message).toContain(key);
    expect(e.message).toContain(name);
  });

  it.each([
    ['70000', /at most 65535/],
    ['-1', /at least 0/],
  ])('rejects the out-of-range port %s', (port, why) => {
    const e = configError(() => loadConfig({ env: { AUTHSRV_HTTP_PORT: port } }));
    expect(e.message).toContain('http.port');
    expect(e.message).toMatch(why);
    const f = configError(() => loadConfig({ file: file(`[http]\nport = ${port}\n`), env: {} }));
    expect(f.message).toContain('http.port');
  });

  it('reads http.workers from AUTHSRV_HTTP_WORKERS and the file: 0 (one per core) to 256', () => {
    expect(loadConfig({ env: { AUTHSRV_HTTP_WORKERS: '4' } }).http.workers).toBe(4);
    expect(loadConfig({ env: { AUTHSRV_HTTP_WORKERS: '0' } }).http.workers).toBe(0);
    expect(loadConfig({ file: file('[http]\nworkers = 256\n'), env: {} }).http.workers).toBe(256);
    for (const [value, why] of [
      ['-1', /at least 0/],
      ['257', /at most 256/],
      ['auto', /integer/],
    ] as const) {
      const e = configError(() => loadConfig({ env: { AUTHSRV_HTTP_WORKERS: value } }));
      expect(e.message).toContain('http.workers');
      expect(e.message).toContain('AUTHSRV_HTTP_WORKERS');
      expect(e.message).toMatch(why);
    }
  });

  it('accepts port 0 (any free port) and the bounds of other integers', () => {
    expect(loadConfig({ env: { AUTHSRV_HTTP_PORT: '0' } }).http.port).toBe(0);
    expect(loadConfig({ env: { AUTHSRV_SECURITY_JWT_VALIDITY: '60' } }).security.jwtValidity).toBe(60);
    expect(configError(() => loadConfig({ env: { AUTHSRV_SECURITY_JWT_VALIDITY: '59' } })).message).toContain(
      'security.jwt_validity',
    );
    expect(configError(() => loadConfig({ env: { AUTHSRV_HTTP_MAX_BODY_BYTES: '100' } })).message).toContain(
      'http.max_body_bytes',
    );
  });

  it('rejects a bad enum value, listing the allowed ones', () => {
    const e = configError(() => loadConfig({ file: file('[log]\nlevel = "verbose"\n'), env: {} }));
    expect(e.message).toContain('log.level');
    expect(e.message).toContain('verbose');
    expect(e.message).toContain('fatal, error, warn, info, debug, trace');
  });

  it.each(['90', 'ten days', '5w', '1.5d', ''])('rejects the bad duration %j in the file', (value) => {
    if (value === '') {
      // The empty string is the documented "no limit".
      expect(loadConfig({ file: file('[audit]\nmax_age = ""\n'), env: {} }).audit.maxAgeSeconds).toBe(0);
      return;
    }
    const e = configError(() => loadConfig({ file: file(`[audit]\nmax_age = "${value}"\n`), env: {} }));
    expect(e.message).toContain('audit.max_age');
    expect(e.message).toContain(value);
  });

  it('rejects a bad duration from the environment and accepts every unit', () => {
    expect(configError(() => loadConfig({ env: { AUTHSRV_AUDIT_MAX_AGE: '3 weeks' } })).message).toContain(
      'AUTHSRV_AUDIT_MAX_AGE',
    );
    const seconds = (v: string) => loadConfig({ env: { AUTHSRV_AUDIT_MAX_AGE: v } }).audit.maxAgeSeconds;
    expect([seconds('30s'), seconds('30m'), seconds('2h'), seconds('7d'), seconds('1y')]).toEqual([
      30,
      1800,
      7200,
      7 * 86_400,
      365 * 86_400,
    ]);
  });

  it.each(['10.0.0.1', '10.0.0.0/8', '0.0.0.0/0', '192.168.1.0/24', '::1', '2001:db8::/32', '::/0'])(
    'accepts the trusted proxy %s',
    (entry) => {
      const c = loadConfig({ file: file(`[http]\ntrusted_proxies = ["${entry}"]\n`), env: {} });
      expect(c.http.trustedProxies).toEqual([entry]);
    },
  );

  it.each([
    'proxy.example.com',
    '10.0.0.256',
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0.0/',
    '10.0.0.0/8/9',
    '10.0.0.0/-1',
    '10.0.0.0/abc',
    '',
  ])('rejects the trusted proxy %j', (entry) => {
    const e = configError(() =>
      loadConfig({ file: file(`[http]\ntrusted_proxies = ["10.0.0.1", "${entry}"]\n`), env: {} }),
    );
    expect(e.message).toContain('http.trusted_proxies');
    expect(e.message).toContain(`'${entry}'`);
  });

  it('rejects a bad trusted proxy from the environment too', () => {
    const e = configError(() => loadConfig({ env: { AUTHSRV_HTTP_TRUSTED_PROXIES: '10.0.0.1,1.2.3.4/40' } }));
    expect(e.message).toContain('AUTHSRV_HTTP_TRUSTED_PROXIES');
    expect(e.message).toContain('1.2.3.4/40');
  });

  it('keeps metrics off by default and reads metrics.listen as host and port', () => {
    expect(loadConfig({ env: {} }).metrics).toEqual({ enabled: false, listen: undefined, tokenFile: '' });
    const c = loadConfig({
      file: file('[metrics]\nenabled = true\nlisten = "127.0.0.1:9464"\ntoken_file = "/etc/authsrv/m"\n'),
      env: {},
    });
    expect(c.metrics).toEqual({
      enabled: true,
      listen: { host: '127.0.0.1', port: 9464 },
      tokenFile: '/etc/authsrv/m',
    });
    const v6 = loadConfig({ env: { AUTHSRV_METRICS_ENABLED: 'true', AUTHSRV_METRICS_LISTEN: '[::1]:0' } });
    expect(v6.metrics.listen).toEqual({ host: '::1', port: 0 });
  });

  it('refuses metrics.enabled without a listener of its own or a token: /metrics would be public', () => {
    const e = configError(() => loadConfig({ env: { AUTHSRV_METRICS_ENABLED: 'true' } }));
    expect(e.message).toContain('metrics.listen');
    expect(e.message).toContain('metrics.token_file');
    expect(loadConfig({ env: { AUTHSRV_METRICS_TOKEN_FILE: '/etc/authsrv/m' } }).metrics.enabled).toBe(false);
  });

  it.each([
    '9464',
    'localhost:9464',
    '127.0.0.1',
    '127.0.0.1:65536',
    '::1:9464',
    '[::1]',
    '127.0.0.1:x',
    ':9464',
  ])('rejects metrics.listen %j', (listen) => {
    const e = configError(() => loadConfig({ env: { AUTHSRV_METRICS_LISTEN: listen } }));
    expect(e.message).toContain('metrics.listen');
    expect(e.message).toContain(`'${listen}'`);
  });

  it('keeps the RADIUS server off by default and reads radius.listen as host and port (IPv6 too)', () => {
    expect(loadConfig({ env: {} }).radius).toEqual({
      listen: undefined,
      maxInflight: 256,
      throttleByCallingStationId: true,
    });
    const c = loadConfig({ file: file('[radius]\nlisten = "0.0.0.0:1812"\n'), env: {} });
    expect(c.radius.listen).toEqual({ host: '0.0.0.0', port: 1812 });
    expect(loadConfig({ env: { AUTHSRV_RADIUS_LISTEN: '[::]:1812' } }).radius.listen).toEqual({
      host: '::',
      port: 1812,
    });
  });

  it('reads radius.max_inflight from 1 to 100 000', () => {
    expect(loadConfig({ file: file('[radius]\nmax_inflight = 32\n'), env: {} }).radius.maxInflight).toBe(32);
    expect(loadConfig({ env: { AUTHSRV_RADIUS_MAX_INFLIGHT: '1' } }).radius.maxInflight).toBe(1);
    for (const bad of ['0', '100001', 'many'])
      expect(configError(() => loadConfig({ env: { AUTHSRV_RADIUS_MAX_INFLIGHT: bad } })).message).toContain(
        'radius.max_inflight',
      );
  });

  it.each(['1812', 'radius.example:1812', '0.0.0.0', '[::1]', '0.0.0.0:70000'])(
    'rejects radius.listen %j',
    (listen) => {
      const e = configError(() => loadConfig({ env: { AUTHSRV_RADIUS_LISTEN: listen } }));
      expect(e.message).toContain('radius.listen');
      expect(e.message).toContain(`'${listen}'`);
    },
  );

  it('requires tls_cert and tls_key together', () => {
    const only = (k: string) => () => loadConfig({ file: file(`[http]\n${k} = "/etc/x.pem"\n`), env: {} });
    for (const k of ['tls_cert', 'tls_key']) {
      const e = configError(only(k));
      expect(e.message).toContain('http.tls_cert');
      expect(e.message).toContain('http.tls_key');
    }
    const both = loadConfig({
      file: file('[http]\ntls_cert = "/etc/c.pem"\ntls_key = "/etc/k.pem"\n'),
      env: {},
    });
    expect(both.http).toMatchObject({ tlsCert: '/etc/c.pem', tlsKey: '/etc/k.pem' });
  });

  it('rejects a database URL with an unknown scheme without showing its password', () => {
    for (const url of [
      'pgsql://authsrv:s3cr3t-pw@db.example/authsrv',
      'oracle://scott:s3cr3t-pw@db.example:1521/orcl',
      'mssql://sa:p@ss/w0rd-s3cr3t-pw@db.example/x',
    ]) {
      const e = configError(() => loadConfig({ env: { AUTHSRV_DATABASE_URL: url } }));
      expect(e.message).toContain('database_url');
      expect(e.message).not.toContain('s3cr3t-pw');
      expect(e.message).not.toContain('w0rd');
      expect(e.message).toContain('***');
    }
  });

  it.each([
    'sqlite:authsrv.db',
    'sqlite:///var/lib/authsrv/authsrv.db',
    'sqlite::memory:',
    'postgres://authsrv@127.0.0.1:5432/authsrv',
    'postgresql://authsrv:pw@db/authsrv',
    'mysql://root@127.0.0.1:3306/authsrv',
    'mariadb://authsrv:pw@db:3306/authsrv',
  ])('accepts the database URL %s', (url) => {
    expect(loadConfig({ env: { AUTHSRV_DATABASE_URL: url } }).databaseUrl).toBe(url);
  });

  it('redacts only the password of a URL', () => {
    expect(redactUrl('postgres://u:pw@h:5432/db')).toBe('postgres://u:***@h:5432/db');
    expect(redactUrl('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(redactUrl('postgres://u@h/db?sslmode=require&password=pw')).toBe(
      'postgres://u@h/db?sslmode=require&password=***',
    );
    expect(redactUrl('mysql://root:a@b@h/db')).toBe('mysql://root:***@h/db');
    expect(redactUrl('sqlite:data/authsrv.db')).toBe('sqlite:data/authsrv.db');
  });

  it('rejects an unknown AUTHSRV_ variable but ignores the tooling ones', () => {
    const e = configError(() => loadConfig({ env: { AUTHSRV_HTTP_PROT: '5000' } }));
    expect(e.message).toContain('AUTHSRV_HTTP_PROT');
    const c = loadConfig({
      env: {
        AUTHSRV_TEST_POSTGRES_URL: 'postgres://postgres@127.0.0.1/test',
        AUTHSRV_TEST_MYSQL_URL: 'mysql://root@127.0.0.1/test',
        AUTHSRV_CONFIG: file('node_name = "n"\n'),
        AUTHSRV_DEBUG: '1',
        AUTHSRVX_HTTP_PORT: 'not ours',
        HTTP_PORT: 'not ours either',
      },
    });
    expect(c.nodeName).toBe('n');
    expect(c.http.port).toBe(5000);
  });

  it('maps every key to its environment variable name', () => {
    expect(envName('http.port')).toBe('AUTHSRV_HTTP_PORT');
    expect(envName('security.key_password_file')).toBe('AUTHSRV_SECURITY_KEY_PASSWORD_FILE');
    expect(envName('node_name')).toBe('AUTHSRV_NODE_NAME');
    const names = CONFIG_KEYS.map((s) => envName(s.key));
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('config/authsrv.toml', () => {
  const text = readFileSync(EXAMPLE, 'utf8');

  it('loads as it is and yields the defaults', () => {
    const c = loadConfig({ file: EXAMPLE, env: {} });
    const d = loadConfig({ env: {} });
    expect({ ...c, sourceFile: undefined }).toEqual({ ...d, sourceFile: undefined });
    expect(parseToml(text)).toBeTypeOf('object');
  });

  /** The lines of each section, `key = …` and `# key = …` alike, by section name ('' for the top). */
  function documentedKeys(): Set<string> {
    const found = new Set<string>();
    let section = '';
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      const header = /^#?\s*\[([a-z_.]+)\]\s*$/.exec(line);
      if (header) {
        section = header[1]!;
        continue;
      }
      const entry = /^#?\s*([a-z_]+)\s*=/.exec(line);
      if (entry) found.add(section === '' ? entry[1]! : `${section}.${entry[1]}`);
    }
    return found;
  }

  it('documents every configuration key inside its section', () => {
    const documented = documentedKeys();
    const missing = CONFIG_KEYS.map((s) => s.key).filter((k) => !documented.has(k));
    expect(missing).toEqual([]);
    const unknown = [...documented].filter((k) => !CONFIG_KEYS.some((s) => s.key === k));
    expect(unknown).toEqual([]);
  });

  it('names the environment variable of every key', () => {
    const missing = CONFIG_KEYS.map((s) => envName(s.key)).filter((n) => !text.includes(n));
    expect(missing).toEqual([]);
  });

  it('explains each key in a comment just above it', () => {
    const lines = text.split('\n');
    for (const spec of CONFIG_KEYS) {
      const name = spec.key.split('.').at(-1)!;
      const at = lines.findIndex((l, i) => {
        if (!new RegExp(`^#?\\s*${name}\\s*=`).test(l.trim())) return false;
        const sectionLine = lines
          .slice(0, i)
          .reverse()
          .find((x) => /^#?\s*\[/.test(x.trim()));
        const section = sectionLine ? /\[([a-z_.]+)\]/.exec(sectionLine)![1] : '';
        return (section ? `${section}.${name}` : name) === spec.key;
      });
      expect(at, spec.key).toBeGreaterThan(0);
      // The comment block right above the key: its explanation, default and variable.
      const block: string[] = [];
      for (let i = at - 1; i >= 0 && lines[i]!.trim().startsWith('#'); i--) block.unshift(lines[i]!);
      const comment = block.join('\n');
      expect(block.length, `${spec.key} has a comment above it`).toBeGreaterThan(1);
      expect(comment, spec.key).toContain('Default:');
      expect(comment, spec.key).toContain(envName(spec.key));
      if (spec.values) for (const v of spec.values) expect(comment, spec.key).toContain(`"${v}"`);
      if (spec.min !== undefined && spec.max !== undefined && spec.key !== 'audit.max_rows') {
        expect(comment, spec.key).toContain(`from ${spec.min} to ${spec.max}`);
      }
    }
  });
});
