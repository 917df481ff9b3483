// The secrets test of issue 16 ("and keep it so"): a server on which a distinctive secret was set
// everywhere one can be set — token seeds of every type that takes one (given and generated),
// token PINs (hashed and encrypted), static passwords, mOTP PINs, the answers of a questionnaire,
// the seeds of imported files and the key that encrypts them (and of a PGP-encrypted file, with
// the passphrase of the GnuPG key that opens it), resolver passwords (LDAP BINDPW, SQL
// Password, SCIM Secret), SMS gateway secrets (PASSWORD, *SECRET* options, the Authorization
// header), RADIUS server secrets and the passwords forwarded to them, a CA connector's key password
// and the password of a generated PKCS#12, password-typed
// configuration entries, a user's password in an editable
// user store, the administrator's password, the server's own keys — and then looked for in every
// form (clear, hex, base32, base64; test/helpers/secret-trap.ts) in the database (every table's rows
// as text on every dialect; on SQLite also the files themselves, -wal and -shm included), in the
// server's log (at debug level) and in the answer of every GET route of the router, called with
// every object's name where the route takes one. Secrets leave the server only in the answer of
// the request that set or generated them (an enrollment's QR code), never after.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../src/core/context.ts';
import { importGpgKey } from '../../src/core/gpg/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type GnupgHome, gnupgHome } from '../helpers/gnupg.ts';
import { hotp as hotpValue } from '../helpers/otp.ts';
import { passwdRealm, pwUser } from '../helpers/realms.ts';
import { type ApiRoute, apiRoutes } from '../helpers/routes.ts';
import { leakedSecrets, type PlantedSecret } from '../helpers/secret-trap.ts';
import { type ApiResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { ed25519PublicKey } from '../helpers/ssh-keys.ts';
import { makeTestCa, openssl } from '../helpers/test-ca.ts';
import { pskcFile } from '../helpers/token-files.ts';
import { ok, SQL_MAP, userToken, writeSqliteUsers } from '../helpers/user-stores.ts';

/** A distinctive secret: a prefix that says what it is and 12 random bytes. */
const distinct = (what: string) => `${what}-${randomBytes(12).toString('hex')}`;
const seed = (bytes = 20) => randomBytes(bytes).toString('hex');

/** A directory and a SCIM service where nothing listens. */
const LDAP = {
  type: 'ldapresolver',
  LDAPURI: 'ldap://127.0.0.1:1',
  LDAPBASE: 'dc=example,dc=org',
  TIMEOUT: '1',
};
/** A machine resolver on the same directory. */
const MACHINE_LDAP = {
  type: 'ldap',
  LDAPURI: 'ldap://127.0.0.1:1',
  LDAPBASE: 'ou=hosts,dc=example,dc=org',
  TIMEOUT: '1',
  HOSTNAMEATTRIBUTE: 'cn',
};
const SCIM = {
  type: 'scimresolver',
  Authserver: 'http://127.0.0.1:1/auth',
  Resourceserver: 'http://127.0.0.1:1/scim',
};

/** A GnuPG key with a passphrase, made once by Debian's gpg for every dialect. */
const GPG_UID = 'Secrets <secrets@example.org>';
const gpg = { home: undefined as unknown as GnupgHome, armor: '', passphrase: distinct('gpgpass') };
beforeAll(() => {
  gpg.home = gnupgHome();
  gpg.home.generate(GPG_UID, gpg.passphrase);
  gpg.armor = gpg.home.exportSecret(GPG_UID, gpg.passphrase);
}, 120_000);
afterAll(() => gpg.home?.close());

describe.each(testDialects())('secrets on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  const logLines: string[] = [];
  const secrets: PlantedSecret[] = [];
  /** Names of the objects made, for the GET routes' path parameters. */
  const serials: string[] = [];
  /** The answer that showed a generated seed: the one place a secret may be seen. */
  let enrollment = '';

  const plant = (label: string, text: string, hex = false): string => {
    secrets.push({ label, text, ...(hex ? { hex } : {}) });
    return text;
  };

  async function upload(path: string, file: string, fields: Record<string, string>): Promise<ApiResponse> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([file], { type: 'text/xml' }), 'tokens.xml');
    const res = await fetch(s.url + path, { method: 'POST', headers: { Authorization: admin }, body: form });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: JSON.parse(text) };
  }

  async function init(params: Record<string, string>): Promise<Record<string, unknown>> {
    const r = await s.call('POST', '/token/init', { user: 'alice', realm: 'realm1', ...params }, admin);
    ok(r);
    serials.push(r.json.detail.serial);
    return r.json.detail;
  }

  /** Tokens of every type that holds a secret, each with its seed (or password) and PIN planted. */
  /**
   * A HOTP token attached for offline: its refill tokens (given in the answers of the check and the
   * refill, stored sealed) must not show elsewhere; the PBKDF2 hashes of PIN and OTP handed to the
   * client hold neither in any form the search knows.
   */
  async function offlineToken(): Promise<void> {
    const otpkey = plant('offline hotp seed', seed(), true);
    const pin = plant('offline hotp PIN', distinct('pin'));
    const serial = String((await init({ type: 'hotp', otpkey, pin })).serial);
    const attach = { serial, application: 'offline', count: '3', rounds: '10' };
    ok(await s.call('POST', '/machine/token', attach, admin));
    const checked = await s.call('POST', '/validate/check', { serial, pass: pin + hotpValue(otpkey, 0) });
    expect(checked.json.result.value).toBe(true);
    const refilltoken = plant('offline refill token', checked.json.auth_items.offline[0].refilltoken);
    const refill = { serial, refilltoken, pass: pin + hotpValue(otpkey, 1) };
    const refilled = await s.call('POST', '/validate/offlinerefill', refill);
    ok(refilled);
    plant('rotated offline refill token', refilled.json.auth_items.offline[0].refilltoken);
  }

  async function enrollTokens(): Promise<void> {
    for (const type of ['hotp', 'totp', 'daypassword', 'indexedsecret']) {
      await init({
        type,
        otpkey: plant(`${type} seed`, seed(), true),
        pin: plant(`${type} PIN`, distinct('pin')),
      });
    }
    await init({
      type: 'motp',
      otpkey: plant('motp seed', seed(8), true),
      motppin: plant('motp PIN', distinct('motppin')),
      pin: plant('motp token PIN', distinct('pin')),
    });
    await init({
      type: 'yubikey',
      otpkey: plant('yubikey AES key', seed(16), true),
      pin: plant('yubikey PIN', distinct('pin')),
    });
    for (const type of ['pw', 'applspec'])
      await init({
        type,
        otpkey: plant(`${type} password`, distinct('pw')),
        pin: plant(`${type} PIN`, distinct('pin')),
        service_id: 'mail',
      });
    await init({
      type: 'question',
      questions: JSON.stringify({
        'First pet?': plant('answer 1', distinct('answer')),
        'Town?': plant('answer 2', distinct('answer')),
      }),
      pin: plant('question PIN', distinct('pin')),
    });
    await init({ type: 'spass', pin: plant('spass PIN', distinct('pin')) });
    // Generated secrets: shown once in the enrollment's answer, never again.
    const hotp = await init({ type: 'hotp', genkey: '1' });
    enrollment = JSON.stringify(hotp);
    plant(
      'generated hotp seed',
      String((hotp.otpkey as { value: string }).value).replace('seed://', ''),
      true,
    );
    const reg = await init({ type: 'registration' });
    plant('registration code', String(reg.registrationcode));
    // A paper token's seed (its printed values are short numbers, too short to look for safely).
    await init({ type: 'paper', papertoken_count: '3', otpkey: plant('paper seed', seed(), true) });
    // PINs set afterwards: hashed, encrypted, random.
    ok(
      await s.call(
        'POST',
        `/token/setpin/${serials[0]}`,
        { otppin: plant('setpin PIN', distinct('setpin')) },
        admin,
      ),
    );
    ok(
      await s.call(
        'POST',
        `/token/setpin/${serials[1]}`,
        { otppin: plant('encrypted PIN', distinct('encpin')), encryptpin: '1' },
        admin,
      ),
    );
  }

  async function importTokens(): Promise<void> {
    const plain = [{ serial: 'PSKCPLAIN', type: 'hotp', secret: plant('PSKC plain seed', seed(), true) }];
    ok(await upload('/token/load/plain.xml', pskcFile(plain), { type: 'pskc' }));
    const psk = Buffer.from(plant('PSKC pre-shared key', seed(16), true), 'hex');
    const sealed = [{ serial: 'PSKCENC', type: 'hotp', secret: plant('PSKC encrypted seed', seed(), true) }];
    ok(
      await upload('/token/load/enc.xml', pskcFile(sealed, psk), { type: 'pskc', psk: psk.toString('hex') }),
    );
    const csvSeed = plant('OATH CSV seed', seed(), true);
    ok(await upload('/token/load/oath.csv', `OATHCSV1, ${csvSeed}, hotp, 6\n`, { type: 'oathcsv' }));
    serials.push('PSKCPLAIN', 'PSKCENC', 'OATHCSV1');
    // A GnuPG private key imported with its passphrase, and an OATH CSV file encrypted to it.
    await importGpgKey(
      withCaller(s.rt, localOperator()),
      gpg.armor,
      plant('GnuPG key passphrase', gpg.passphrase),
    );
    const gpgSeed = plant('PGP-encrypted OATH CSV seed', seed(), true);
    const encrypted = gpg.home.encrypt(`GPGCSV1, ${gpgSeed}, hotp, 6\n`, GPG_UID);
    ok(await upload('/token/load/oath.csv.asc', encrypted, { type: 'oathcsv' }));
    serials.push('GPGCSV1');
  }

  async function resolversAndConfig(): Promise<void> {
    ok(
      await s.call(
        'POST',
        '/resolver/ldap1',
        {
          ...LDAP,
          BINDDN: 'cn=reader',
          BINDPW: plant('LDAP BINDPW', distinct('bindpw')),
          // A setting the administrator marks as a password (one that is otherwise unused).
          KEYTABFILE: plant('resolver setting marked password', distinct('marked')),
          'type.KEYTABFILE': 'password',
        },
        admin,
      ),
    );
    const users = await writeSqliteUsers(s.dataDir, 'users.sqlite', [{ username: 'bob' }]);
    ok(
      await s.call(
        'POST',
        '/resolver/sql1',
        {
          type: 'sqlresolver',
          Driver: 'sqlite',
          Database: users,
          Table: 'users',
          Map: SQL_MAP,
          Editable: 'True',
          Password: plant('SQL Password', distinct('sqlpw')),
        },
        admin,
      ),
    );
    ok(
      await s.call(
        'POST',
        '/resolver/scim1',
        { ...SCIM, Client: 'authsrv', Secret: plant('SCIM Secret', distinct('scim')) },
        admin,
      ),
    );
    ok(
      await s.call(
        'POST',
        '/machineresolver/mldap1',
        { ...MACHINE_LDAP, BINDDN: 'cn=reader', BINDPW: plant('machine LDAP BINDPW', distinct('mbindpw')) },
        admin,
      ),
    );
    ok(
      await s.call(
        'POST',
        '/smsgateway',
        {
          name: 'sms1',
          module: 'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider',
          'option.URL': 'http://127.0.0.1:1/send',
          'option.HTTP_METHOD': 'POST',
          'option.CHECK_SSL': 'yes',
          'option.SEND_DATA_AS_JSON': 'no',
          'option.USERNAME': 'sms',
          'option.PASSWORD': plant('SMS gateway PASSWORD', distinct('smspw')),
          'option.api_secret': plant('SMS gateway api_secret option', distinct('smsapi')),
          'header.Authorization': plant(
            'SMS gateway Authorization header',
            `Bearer ${distinct('smsbearer')}`,
          ),
        },
        admin,
      ),
    );
    ok(
      await s.call(
        'POST',
        '/smtpserver/relay1',
        {
          server: '127.0.0.1',
          username: 'mailer',
          password: plant('SMTP server password', distinct('smtppw')),
        },
        admin,
      ),
    );
    ok(await s.call('POST', '/realm/sqlrealm', { resolvers: 'sql1' }, admin));
    ok(
      await s.call(
        'POST',
        '/user/',
        { user: 'carol', resolver: 'sql1', password: plant('user password', distinct('userpw')) },
        admin,
      ),
    );
    ok(
      await s.call(
        'POST',
        '/system/setConfig',
        { key: 'smtp.password', value: plant('config password', distinct('cfgpw')), type: 'password' },
        admin,
      ),
    );
    ok(
      await s.call(
        'POST',
        '/system/setConfig',
        { 'radius.secret': plant('config password 2', distinct('cfgpw')), 'radius.secret.type': 'password' },
        admin,
      ),
    );
  }

  /** Logins and checks that carry secrets in their parameters: none may be logged or audited. */
  async function useSecrets(): Promise<void> {
    await userToken(s, 'carol', secrets.find((x) => x.label === 'user password')!.text, 'sqlrealm');
    const pw = secrets.find((x) => x.label === 'pw password')!.text;
    const pin = secrets.find((x) => x.label === 'pw PIN')!.text;
    await s.call('POST', '/validate/check', { user: 'alice', realm: 'realm1', pass: `${pin}${pw}` });
    await s.call('POST', '/validate/check', {
      user: 'alice',
      realm: 'realm1',
      pass: plant('wrong pass', distinct('wrongpass')),
    });
    await s.call('POST', '/auth', {
      username: 'admin',
      password: plant('wrong admin password', distinct('wrongadmin')),
    });
    await failingStores();
  }

  /**
   * The paths that log (at info level and above) the error of a failing user store or connection:
   * resolver tests against nothing, a login and a check in a realm whose store fails.
   */
  async function failingStores(): Promise<void> {
    const nowhere = {
      Server: '127.0.0.1',
      Port: '1',
      Database: 'x',
      User: 'u',
      Table: 'users',
      Map: SQL_MAP,
    };
    for (const Driver of ['postgresql', 'mysql']) {
      const Password = plant(`SQL test password ${Driver}`, distinct('sqltest'));
      await s.call('POST', '/resolver/test', { type: 'sqlresolver', Driver, ...nowhere, Password }, admin);
    }
    const BINDPW = plant('LDAP test password', distinct('ldaptest'));
    await s.call('POST', '/resolver/test', { ...LDAP, BINDDN: 'cn=reader', BINDPW }, admin);
    const machineBindpw = plant('machine LDAP test password', distinct('mldaptest'));
    await s.call(
      'POST',
      '/machineresolver/test',
      { ...MACHINE_LDAP, BINDDN: 'cn=reader', BINDPW: machineBindpw },
      admin,
    );
    // A RADIUS server definition (nothing listens on port 1), its test request and a radius token
    // whose pass is forwarded to it.
    ok(
      await s.call(
        'POST',
        '/radiusserver/rad1',
        {
          server: '127.0.0.1',
          port: '1',
          timeout: '1',
          retries: '0',
          secret: plant('RADIUS secret', distinct('radsecret')),
        },
        admin,
      ),
    );
    // A RADIUS client (NAS) of authsrv's own RADIUS server.
    ok(
      await s.call(
        'POST',
        '/radiusclient/nas1',
        { address: '192.0.2.0/24', secret: plant('RADIUS client secret', distinct('radclient')) },
        admin,
      ),
    );
    await s.call(
      'POST',
      '/radiusserver/test_request',
      {
        server: '127.0.0.1',
        port: '1',
        timeout: '1',
        retries: '0',
        secret: plant('RADIUS test secret', distinct('radtest')),
        username: 'alice',
        password: plant('RADIUS test password', distinct('radtestpw')),
      },
      admin,
    );
    const rad = await init({ type: 'radius', 'radius.identifier': 'rad1', 'radius.user': 'alice' });
    await s.call('POST', '/validate/check', {
      serial: String(rad.serial),
      pass: plant('RADIUS pass', distinct('radpass')),
    });
    // A CA connector whose key is encrypted with a password, and a certificate token whose
    // generated key comes back in a PKCS#12 protected by a given password (stored nowhere).
    const ca = makeTestCa(s.dataDir);
    const caPassword = plant('CA key password', distinct('capw'));
    const caKey = join(ca.dir, 'secret-key.pem');
    openssl(['pkey', '-in', ca.cakey, '-aes256', '-passout', `pass:${caPassword}`, '-out', caKey]);
    ok(
      await s.call(
        'POST',
        '/caconnector/ca1',
        { type: 'local', cacert: ca.cacert, cakey: caKey, password: caPassword, CRL: ca.crl },
        admin,
      ),
    );
    const p12 = plant('PKCS#12 password', distinct('p12pw'));
    expect(
      (await init({ type: 'certificate', ca: 'ca1', genkey: '1', pkcs12_password: p12 })).serial,
    ).toMatch(/^CRT/);
    // The machine listing fails on the directory where nothing listens, and logs nothing secret.
    await s.call('GET', '/machine/', {}, admin);
    // An SSH key attached for a service ID: GET /machine/token and /machine/authitem list it below.
    ok(await s.call('POST', '/serviceid/secretsvc', {}, admin));
    const ssh = await init({ type: 'sshkey', sshkey: ed25519PublicKey('secrets') });
    const attach = { serial: String(ssh.serial), application: 'ssh', service_id: 'secretsvc', user: 'alice' };
    ok(await s.call('POST', '/machine/token', attach, admin));
    await offlineToken();
    const Secret = plant('SCIM test secret', distinct('scimtest'));
    await s.call('POST', '/resolver/test', { ...SCIM, Client: 'c', Secret }, admin);
    ok(await s.call('POST', '/realm/ldaprealm', { resolvers: 'ldap1' }, admin));
    const password = plant('password for a failing store', distinct('failpw'));
    await s.call('POST', '/auth', { username: 'nobody', realm: 'ldaprealm', password });
    const pass = plant('pass for a failing store', distinct('failpass'));
    await s.call('POST', '/validate/check', { user: 'nobody', realm: 'ldaprealm', pass });
  }

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    s = await startTestServer({ dialect, logger: pino({ level: 'debug' }, sink) });
    plant('admin password', s.adminPassword);
    admin = await s.adminToken();
    await passwdRealm(s, admin, 'realm1', [pwUser('alice', 1001)]);
    await enrollTokens();
    await importTokens();
    await resolversAndConfig();
    await useSecrets();
    // The server's own keys: never in its database, log or answers either.
    for (const name of ['encryption.key', 'signing.key', 'jwt.secret'])
      plant(`key file ${name}`, readFileSync(join(s.dataDir, name)).toString('hex'), true);
    expect(secrets.length).toBeGreaterThan(40);
  }, 120_000);
  afterAll(async () => s?.close());

  it('the database holds no secret in any form: every row of every table, and the SQLite files', async () => {
    const db = s.rt.store.db;
    const leaks: string[] = [];
    const tables = (await db.introspection.getTables()).map((t) => t.name);
    expect(tables).toEqual(
      expect.arrayContaining(['token', 'tokeninfo', 'config', 'resolver', 'audit', 'admin']),
    );
    for (const table of tables) {
      // biome-ignore lint/suspicious/noExplicitAny: every table, read by name
      const rows = await (db as any).selectFrom(table).selectAll().execute();
      const dump = rows
        .map((r: Record<string, unknown>) =>
          JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : v)),
        )
        .join('\n');
      for (const leak of leakedSecrets(dump, secrets)) leaks.push(`${table}: ${leak}`);
    }
    // On SQLite the files as they are on disk too: free pages and the write-ahead log keep what
    // the rows no longer show. (PostgreSQL's and MariaDB's files belong to their servers.)
    const files = readdirSync(s.dataDir).filter((f) => /\.db(-wal|-shm|-journal)?$/.test(f));
    expect(files.some((f) => f.endsWith('.db'))).toBe(dialect === 'sqlite');
    for (const f of files)
      for (const leak of leakedSecrets(readFileSync(join(s.dataDir, f)), secrets))
        leaks.push(`${f}: ${leak}`);
    expect(leaks).toEqual([]);
  });

  it('the log holds no secret in any form', () => {
    // The failing stores and connections were logged, with their errors.
    expect(logLines.length).toBeGreaterThanOrEqual(3);
    expect(leakedSecrets(logLines.join(''), secrets)).toEqual([]);
  });

  it('no GET answer holds a secret in any form', async () => {
    const names: Record<string, string[]> = {
      serial: serials,
      resolver: ['ldap1', 'sql1', 'scim1', 'realm1-res', 'mldap1'],
      realm: ['realm1', 'sqlrealm', 'ldaprealm'],
      key: ['smtp.password', 'radius.secret'],
      name: ['none', 'ca1'],
      csvfile: ['audit.csv'],
      export: ['policies.cfg'],
      scope: ['admin', 'enrollment', 'authentication'],
      otp: ['123456'],
      transaction_id: ['0'],
      application: ['ssh', 'offline'],
      gwid: ['sms1', '1'],
    };
    const routes = apiRoutes(s.rt).filter((r) => r.method === 'GET');
    expect(routes.length).toBeGreaterThan(30);
    const leaks: string[] = [];
    let answers = 0;
    const get = async (path: string, params: Record<string, string> = {}) => {
      const r = await s.call('GET', path, params, admin);
      answers++;
      for (const leak of leakedSecrets(r.text, secrets)) leaks.push(`GET ${path}: ${leak}`);
    };
    for (const route of routes) {
      for (const path of paths(route, names)) await get(path);
    }
    // The listings with everything in them.
    await get('/audit/', { page_size: '1000' });
    await get('/token/', { pagesize: '1000' });
    await get('/user/', { realm: 'sqlrealm' });
    await get('/user/', { realm: 'realm1' });
    for (const serial of serials) await get('/token/', { serial });
    await get('/machine/authitem/ssh', { service_id: 'secretsvc' });
    expect(answers).toBeGreaterThan(routes.length + serials.length);
    // The search finds a secret where it is meant to be: the generated seed in its enrollment's
    // answer (hex, and base32 in the QR code's URL).
    expect(leakedSecrets(enrollment, secrets)).toEqual([expect.stringMatching(/^generated hotp seed/)]);
    expect(leaks).toEqual([]);
  });
});

/** The route's paths with every combination of the names known for its parameters. */
function paths(route: ApiRoute, names: Record<string, string[]>): string[] {
  let out = [route.path];
  for (const param of route.params) {
    const values = names[param] ?? ['x'];
    out = out.flatMap((p) => values.map((v) => p.replace(`:${param}`, encodeURIComponent(v))));
  }
  return out;
}
