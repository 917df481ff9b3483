// CA connectors and certificate tokens over HTTP (reference 8.5, spec "CA connector endpoints",
// issue 21): a local CA made by Debian's openssl; create, update, list with the key password
// censored (sealed at rest), get, delete, /caconnector/specific/local, /system/names/caconnector;
// every refused configuration (unknown type, missing or unreadable files, a key not matching its
// certificate, a wrong key password, templates that do not parse) answering a clear error and
// storing nothing; certificate tokens from a CSR and with a generated key, checked with
// `openssl verify`, `x509 -text` and `pkcs12 -info`; revocation into the CRL (`openssl crl`); the
// CRLRefresh task; the rights and one audit row per request.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { taskModule } from '../../src/task-modules/registry.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import {
  crlText,
  makeCsr,
  makeTestCa,
  pkcs12Info,
  type TestCa,
  verify,
  x509Text,
} from '../helpers/test-ca.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

describe.each(testDialects())('CA connectors on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  let ca: TestCa;

  useTokenServer(
    dialect,
    { realms: { realm1: [pwUser('alice', 1001)] }, reset: ['policies', 'audit', 'tokens'] },
    (t) => ({ s, op, admin } = t),
  );
  beforeAll(() => {
    ca = makeTestCa(s.dataDir);
  });
  afterEach(async () => {
    for (const table of ['caconnectorconfig', 'carevoked', 'caconnector'] as const)
      await s.rt.store.db.deleteFrom(table).execute();
    rmSync(ca.crl, { force: true, recursive: true });
  });

  const define = (name: string, params: Record<string, string>) =>
    s.call('POST', `/caconnector/${name}`, params, admin);
  const local = (extra: Record<string, string> = {}) => ({
    type: 'local',
    cacert: ca.cacert,
    cakey: ca.cakey,
    templates: ca.templates,
    CRL: ca.crl,
    ...extra,
  });
  const stored = async () => ({
    connectors: await s.rt.store.db
      .selectFrom('caconnector')
      .select(['name', 'catype'])
      .orderBy('name')
      .execute(),
    config: await s.rt.store.db
      .selectFrom('caconnectorconfig')
      .select(['key', 'value', 'sealed'])
      .orderBy('key')
      .execute(),
  });
  const auditRows = (action: string) =>
    s.rt.store.db
      .selectFrom('audit')
      .select(['success', 'info'])
      .where('action', '=', action)
      .orderBy('id')
      .execute();

  it('creates, updates, lists (key password censored, sealed at rest), gets and deletes connectors', async () => {
    expect(ok(await s.call('GET', '/caconnector/', {}, admin))).toEqual([]);
    const id = ok(
      await define(
        'ca1',
        local({ cakey: ca.encryptedKey, password: ca.keyPassword, WorkingDir: '/etc/pi/ca' }),
      ),
    );
    expect(typeof id).toBe('number');
    ok(await define('ca2', local()));
    const all = ok(await s.call('GET', '/caconnector/', {}, admin));
    expect(all.map((c: { connectorname: string }) => c.connectorname)).toEqual(['ca1', 'ca2']);
    expect(all[0]).toEqual({
      connectorname: 'ca1',
      type: 'local',
      data: {
        CRL: ca.crl,
        WorkingDir: '/etc/pi/ca',
        cacert: ca.cacert,
        cakey: ca.encryptedKey,
        password: '__CENSORED__',
        templates: ca.templates,
      },
      templates: {
        vpn: {
          days: 30,
          key_usage: ['digitalSignature', 'keyEncipherment'],
          extended_key_usage: ['clientAuth'],
          subject_required: ['CN'],
        },
        webserver: {
          days: 397,
          key_usage: ['digitalSignature', 'keyEncipherment'],
          extended_key_usage: ['serverAuth'],
          subject_required: ['CN'],
        },
      },
    });
    expect(ok(await s.call('GET', '/caconnector/ca1', {}, admin))).toEqual([all[0]]);
    // The password is sealed in the database.
    const rows = (await stored()).config;
    expect(rows.map((r) => r.value).join()).not.toContain(ca.keyPassword);
    expect(rows.filter((r) => Number(r.sealed) === 1).map((r) => r.key)).toEqual(['password']);
    // __CENSORED__ (or no password) keeps the stored one for the same key file …
    ok(await define('ca1', local({ cakey: ca.encryptedKey, password: '__CENSORED__' })));
    ok(await define('ca1', local({ cakey: ca.encryptedKey })));
    // … but not for another one.
    expectServiceError(
      await define('ca1', local({ cakey: ca.cakey, password: '__CENSORED__' })),
      905,
      /password must be given again: cakey differs/,
    );
    const names = ok(await s.call('GET', '/system/names/caconnector', {}, admin));
    expect(names).toEqual([
      { connectorname: 'ca1', type: 'local', templates: all[0].templates },
      { connectorname: 'ca2', type: 'local', templates: all[1].templates },
    ]);
    expect(JSON.stringify(names)).not.toContain('cakey');
    const specific = ok(
      await s.call('GET', '/caconnector/specific/local', { templates: ca.templates }, admin),
    );
    expect(Object.keys(specific.options)).toContain('CRL_Overlap_Period');
    expect(specific.options.password.type).toBe('password');
    expect(Object.keys(specific.templates)).toEqual(['vpn', 'webserver']);
    expectServiceError(
      await s.call('GET', '/caconnector/specific/msca', {}, admin),
      905,
      /Unknown CA type 'msca'/,
    );
    expect(typeof ok(await s.call('DELETE', '/caconnector/ca2', {}, admin))).toBe('number');
    expectServiceError(
      await s.call('DELETE', '/caconnector/ca2', {}, admin),
      601,
      'The CA connector ca2 does not exist.',
    );
    expect((await stored()).connectors).toEqual([{ name: 'ca1', catype: 'local' }]);
    expect((await auditRows('POST /caconnector/<name>')).map((r) => r.success)).toEqual([1, 1, 1, 1, 0]);
    expect(await auditRows('DELETE /caconnector/<name>')).toEqual([
      { success: 1, info: 'ca2' },
      { success: 0, info: 'ca2' },
    ]);
    expect((await auditRows('GET /caconnector/')).length).toBe(2);
  });

  it('refuses a broken configuration with a clear error and stores nothing', async () => {
    const broken = join(ca.dir, 'broken.yaml');
    writeFileSync(broken, 'vpn: [unclosed\n  days: 3');
    const wrongDays = join(ca.dir, 'wrong-days.yaml');
    writeFileSync(wrongDays, 'vpn:\n  days: ever\n');
    const notPem = join(ca.dir, 'not-pem.txt');
    writeFileSync(notPem, 'hello');
    const cases: [Record<string, string>, RegExp][] = [
      [{ ...local(), type: 'msca' }, /Unknown CA type 'msca': use local/],
      [{ cacert: ca.cacert, cakey: ca.cakey }, /Missing parameter: 'type'/],
      [local({ cakey: '' }), /Missing parameter: 'cakey'/],
      [local({ cakey: join(ca.dir, 'missing.pem') }), /cakey/],
      [local({ cacert: '/etc/shadow' }), /cacert: \/etc\/shadow is not in a directory allowed/],
      [local({ cakey: ca.otherKey }), /cakey: the key does not belong to the certificate cacert/],
      [local({ cakey: ca.encryptedKey }), /cakey: the key is protected by a password: give it as password/],
      [local({ cakey: ca.encryptedKey, password: 'wrong' }), /can not be decrypted with the given password/],
      [local({ cakey: notPem }), /cakey: the file holds no private key/],
      [local({ cacert: notPem }), /cacert: the file holds no certificate/],
      [local({ templates: broken }), /templates: the file is not valid YAML/],
      [local({ templates: wrongDays }), /templates: days of template 'vpn' must be a whole number/],
      [local({ CRL_Validity_Period: 'x' }), /CRL_Validity_Period must be a whole number of days/],
      [local({ colour: 'blue' }), /Unknown option 'colour' of CA type local/],
      [local({ password: '__CENSORED__' }), /password is __CENSORED__ but no password is stored/],
      [local({ CRL: join(ca.dir, 'nodir', 'crl.pem') }), /CRL: the directory .*nodir does not exist/],
      [local({ CRL: '/etc/crl.pem' }), /CRL: \/etc\/crl\.pem is not in a directory allowed/],
    ];
    for (const [params, message] of cases) {
      const r = await define('bad', params);
      expect(r.status).toBe(200);
      expectServiceError(r, 905, message);
    }
    expectServiceError(await define('a b', local()), 905, /Invalid CA connector name/);
    expect(await stored()).toEqual({ connectors: [], config: [] });
  });

  it('issues certificates for a CSR and with a generated key, and revokes them into the CRL', async () => {
    ok(await define('ca1', local({ CRL_Validity_Period: '10' })));
    const csr = makeCsr(ca.dir, '/CN=vpn.example.org/O=Example');
    const init = await s.call(
      'POST',
      '/token/init',
      { type: 'certificate', ca: 'ca1', template: 'vpn', request: csr, serial: 'CRT1' },
      admin,
    );
    const detail = init.json.detail;
    expect(ok(init)).toBe(true);
    expect(detail.serial).toBe('CRT1');
    expect(verify(ca, detail.certificate)).toMatch(/: OK$/);
    const text = x509Text(detail.certificate);
    expect(text).toMatch(/Issuer: CN\s?=\s?authsrv Test CA, O\s?=\s?authsrv/);
    expect(text).toMatch(/Subject: CN\s?=\s?vpn\.example\.org, O\s?=\s?Example/);
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
    expect(text).toMatch(/X509v3 Extended Key Usage:\s+TLS Web Client Authentication/);
    expect(text).toMatch(/CA:FALSE/);
    expect(text).toContain('DNS:vpn.example.org');
    const notBefore = new Date(/Not Before: (.*)/.exec(text)![1]!);
    const notAfter = new Date(/Not After : (.*)/.exec(text)![1]!);
    expect(Math.round((notAfter.getTime() - notBefore.getTime()) / 86_400_000)).toBe(30);
    const tokens = ok(await s.call('GET', '/token/', { serial: 'CRT1' }, admin)).tokens;
    expect(tokens[0].tokentype).toBe('certificate');
    expect(tokens[0].info.CA).toBe('ca1');

    // A server-generated key comes back once, as a PKCS#12 protected by the given password.
    const gen = await s.call(
      'POST',
      '/token/init',
      {
        type: 'certificate',
        ca: 'ca1',
        template: 'webserver',
        genkey: '1',
        serial: 'CRT2',
        pkcs12_password: 'bundle-pw',
      },
      admin,
    );
    expect(ok(gen)).toBe(true);
    expect(gen.json.detail.pkcs12_password).toBeUndefined();
    const info = pkcs12Info(ca, gen.json.detail.pkcs12, 'bundle-pw');
    expect(info).toContain('BEGIN PRIVATE KEY');
    expect(info).toMatch(/subject=CN\s?=\s?CRT2/);
    expect(info).toMatch(/subject=CN\s?=\s?authsrv Test CA/);
    expect(info).toMatch(/PBES2, PBKDF2, AES-256-CBC/);
    expect(verify(ca, gen.json.detail.certificate, 'generated')).toMatch(/: OK$/);
    expect(x509Text(gen.json.detail.certificate)).toMatch(/TLS Web Server Authentication/);
    expect(() => pkcs12Info(ca, gen.json.detail.pkcs12, 'wrong')).toThrow();
    // Without a password, one is generated and returned with the bundle.
    const gen2 = await s.call('POST', '/token/init', { type: 'certificate', ca: 'ca1', genkey: '1' }, admin);
    expect(gen2.json.detail.pkcs12_password).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(pkcs12Info(ca, gen2.json.detail.pkcs12, gen2.json.detail.pkcs12_password)).toContain(
      'BEGIN PRIVATE KEY',
    );

    // Revoking the token revokes its certificate: the CRL lists its serial.
    expect(existsSync(ca.crl)).toBe(false);
    ok(await s.call('POST', '/token/revoke', { serial: 'CRT1' }, admin));
    const serial = (/Serial Number:\s*\n?\s*([0-9a-f:]+)/i.exec(x509Text(detail.certificate))![1] ?? '')
      .replace(/:/g, '')
      .toUpperCase();
    const crl = crlText(ca);
    expect(crl).toContain(`Serial Number: ${serial}`);
    expect(crl).toMatch(/Issuer: CN\s?=\s?authsrv Test CA/);
    expect(crl).not.toContain('No Revoked Certificates');
    const generatedSerial = (
      /Serial Number:\s*\n?\s*([0-9a-f:]+)/i.exec(x509Text(gen.json.detail.certificate))![1] ?? ''
    )
      .replace(/:/g, '')
      .toUpperCase();
    expect(crl).not.toContain(generatedSerial);
    // The CRL is signed by the CA: openssl verifies it against the CA certificate.
    expect(
      (await import('../helpers/test-ca.ts')).openssl(['crl', '-in', ca.crl, '-CAfile', ca.cacert, '-noout']),
    ).toBe('');
  });

  it('refuses a certificate enrollment with bad input and stores no token', async () => {
    ok(await define('ca1', local()));
    const csr = makeCsr(ca.dir, '/CN=a.example.org', 'bad');
    const noCn = makeCsr(ca.dir, '/O=Example', 'nocn');
    const init = (params: Record<string, string>) =>
      s.call('POST', '/token/init', { type: 'certificate', ...params }, admin);
    expectServiceError(await init({ request: csr }), 905, "Missing parameter: 'ca'");
    expectServiceError(await init({ ca: 'ca1' }), 905, "Missing parameter: 'request'");
    expectServiceError(
      await init({ ca: 'nope', request: csr }),
      905,
      "The CA connector 'nope' does not exist.",
    );
    expectServiceError(
      await init({ ca: 'ca1', template: 'nope', request: csr }),
      905,
      /template 'nope' does not exist/,
    );
    expectServiceError(
      await init({ ca: 'ca1', request: 'garbage' }),
      905,
      /not a PEM certificate signing request/,
    );
    expectServiceError(await init({ ca: 'ca1', request: csr.replace(/[A-Z](?=[^-]*-----END)/, 'x') }), 905);
    expectServiceError(
      await init({ ca: 'ca1', template: 'vpn', request: noCn }),
      905,
      /The subject must contain CN/,
    );
    expectServiceError(
      await init({ ca: 'ca1', request: csr, genkey: '1' }),
      905,
      /either 'request' or 'genkey'/,
    );
    expect(await s.rt.store.db.selectFrom('token').select('serial').execute()).toEqual([]);
  });

  it('the enrollment policies certificate_ca_connector and certificate_template win over the request; a generated key is for the owner', async () => {
    ok(await define('ca1', local()));
    await setPolicy(op, 'enr', {
      scope: 'enrollment',
      action: 'certificate_ca_connector=ca1, certificate_template=vpn',
    });
    const r = await s.call(
      'POST',
      '/token/init',
      {
        type: 'certificate',
        ca: 'other',
        template: 'webserver',
        genkey: '1',
        user: 'alice',
        realm: 'realm1',
      },
      admin,
    );
    expect(ok(r)).toBe(true);
    const text = x509Text(r.json.detail.certificate);
    expect(text).toMatch(/Subject: CN\s?=\s?alice\n/);
    expect(text).toContain('TLS Web Client Authentication');
    expect(text).not.toContain('TLS Web Server Authentication');
    const info = ok(await s.call('GET', '/token/', { serial: r.json.detail.serial }, admin)).tokens[0].info;
    expect([info.CA, info.template]).toEqual(['ca1', 'vpn']);
    // A certificate token never authenticates.
    const check = await s.call('POST', '/validate/check', { serial: r.json.detail.serial, pass: '' });
    expect(check.json.result.value).toBe(false);
  });

  it('revokes a token whose connector is gone, and reports a CRL that can not be written', async () => {
    ok(await define('ca1', local()));
    const csr = makeCsr(ca.dir, '/CN=gone.example.org', 'gone');
    const init = (serial: string) =>
      s.call('POST', '/token/init', { type: 'certificate', ca: 'ca1', request: csr, serial }, admin);
    ok(await init('CRTGONE'));
    ok(await init('CRTFAIL'));
    // The CRL path turns into a directory: writing it fails with a clear error, not a 500.
    mkdirSync(ca.crl);
    const r = await s.call('POST', '/token/revoke', { serial: 'CRTFAIL' }, admin);
    expect(r.status).toBe(200);
    expectServiceError(r, 905, /CRL: .*crl\.pem is not a regular file/);
    rmSync(ca.crl, { recursive: true });
    expect(readdirSync(ca.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // The token is revoked and its revocation recorded: the next CRL written lists it.
    expect(ok(await s.call('GET', '/token/', { serial: 'CRTFAIL' }, admin)).tokens[0].revoked).toBe(true);
    expect(await taskModule('CRLRefresh').run(s.rt, {})).toEqual({ refreshed: 1, failed: 0 });
    expect(crlText(ca)).toMatch(/Revoked Certificates:\n\s+Serial Number: [0-9A-F]+\n/);
    // The connector deleted, revoking its token still revokes the token.
    ok(await s.call('DELETE', '/caconnector/ca1', {}, admin));
    expect(ok(await s.call('POST', '/token/revoke', { serial: 'CRTGONE' }, admin))).toBe(1);
    const tokens = ok(await s.call('GET', '/token/', { serial: 'CRTGONE' }, admin)).tokens;
    expect(tokens[0].revoked).toBe(true);
  });

  it('CRLRefresh writes a CRL that is missing or due, and leaves a fresh one', async () => {
    ok(await define('ca1', local({ CRL_Validity_Period: '10', CRL_Overlap_Period: '2' })));
    const refresh = taskModule('CRLRefresh');
    expect(await refresh.run(s.rt, {})).toEqual({ refreshed: 1, failed: 0 });
    const first = crlText(ca);
    expect(first).toContain('No Revoked Certificates');
    expect(await refresh.run(s.rt, {})).toEqual({ refreshed: 0, failed: 0 });
    // Nine days later the CRL's next update is within the overlap period.
    const rt = { ...s.rt, clock: () => new Date(Date.now() + 9 * 86_400_000) };
    expect(await refresh.run(rt, {})).toEqual({ refreshed: 1, failed: 0 });
    expect(crlText(ca)).not.toEqual(first);
  });

  it('needs an administrator and the rights caconnectorread/write/delete; names/caconnector needs enrollCERTIFICATE', async () => {
    ok(await define('ca1', local()));
    expect((await s.call('GET', '/caconnector/')).status).toBe(401);
    expect((await s.call('POST', '/caconnector/x', local())).status).toBe(401);
    expect((await s.call('GET', '/system/names/caconnector')).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('GET', '/caconnector/', {}, admin),
      303,
      'Admin actions are defined, but the action caconnectorread is not allowed!',
    );
    expectServiceError(await s.call('GET', '/caconnector/specific/local', {}, admin), 303);
    expectServiceError(await define('x', local()), 303, /caconnectorwrite/);
    expectServiceError(await s.call('DELETE', '/caconnector/ca1', {}, admin), 303, /caconnectordelete/);
    expectServiceError(await s.call('GET', '/system/names/caconnector', {}, admin), 303, /enrollCERTIFICATE/);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'caconnectorread, enrollCERTIFICATE' });
    expect(ok(await s.call('GET', '/caconnector/', {}, admin)).length).toBe(1);
    expect(ok(await s.call('GET', '/system/names/caconnector', {}, admin))[0].connectorname).toBe('ca1');
    await setPolicy(op, 'adm', { scope: 'admin', action: 'caconnectorwrite, caconnectordelete' });
    ok(await define('x', local()));
    ok(await s.call('DELETE', '/caconnector/x', {}, admin));
  });
});
