// GET /system/documentation over HTTP (issue 21, reference 8.1): a configuration of every kind —
// system configuration, resolvers, realms, policies, machine resolvers, SMTP servers, SMS
// gateways, RADIUS servers, event handlers, periodic tasks, an imported GnuPG key — with a secret
// in each, and values that are markup in reStructuredText. The document is a text/plain
// attachment that Debian's docutils renders without a warning, names every object, shows the
// markup as text and holds none of the secrets; the right system_documentation; an audit row.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { importGpgKey } from '../../src/core/gpg/index.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { htmlText, renderRst } from '../helpers/docutils.ts';
import { gnupgHome } from '../helpers/gnupg.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { makeTestCa, openssl } from '../helpers/test-ca.ts';
import { expectServiceError, jsonCall, ok, writePasswdFile } from '../helpers/user-stores.ts';

const SECRETS = {
  config: 'CfgSecret-1',
  bind: 'BindSecret-2',
  machineBind: 'MachSecret-3',
  smtp: 'SmtpSecret-4',
  sms: 'SmsSecret-5',
  header: 'HdrSecret-6',
  radius: 'RadSecret-7',
  cakey: 'CaKeySecret-8',
};
const NASTY = '*not bold* `not code` |not sub| _target trailing_ [1]_ :role:`x`';
const DIRECTIVE = '.. include:: /etc/passwd';

let gpgArmor: string;
let gpgKeyid: string;
beforeAll(() => {
  const g = gnupgHome();
  try {
    gpgKeyid = g.generate('Doc key <doc@example.org>').keyid;
    gpgArmor = g.exportSecret('Doc key <doc@example.org>');
  } finally {
    g.close();
  }
}, 120_000);

describe.each(testDialects())('GET /system/documentation on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  beforeAll(async () => {
    s = await startTestServer({ dialect });
    op = withCaller(s.rt, localOperator());
    admin = await s.adminToken();
    const post = async (path: string, params: Record<string, string>) =>
      ok(await s.call('POST', path, params, admin));
    await post('/system/setConfig', {
      'email.mailserver': 'smtp.example.org',
      'email.password': SECRETS.config,
      'email.password.type': 'password',
      'note.text': `${DIRECTIVE}\n- list item\nsecond line`,
    });
    const file = await writePasswdFile(s.dataDir, 'passwd', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
    ]);
    await post('/resolver/files', { type: 'passwdresolver', Filename: file });
    await post('/resolver/corp', {
      type: 'ldapresolver',
      LDAPURI: 'ldap://127.0.0.1:9',
      LDAPBASE: 'dc=example,dc=org',
      BINDDN: 'cn=reader,dc=example,dc=org',
      BINDPW: SECRETS.bind,
    });
    await post('/realm/realm1', { resolvers: 'files' });
    await setPolicy(op, 'weird_policy_', {
      scope: 'authentication',
      action: 'otppin=userstore, challenge_text=Type *the* code',
      realm: 'realm1',
      description: NASTY,
    });
    await post('/machineresolver/lab', {
      type: 'ldap',
      LDAPURI: 'ldap://127.0.0.1:9',
      LDAPBASE: 'ou=hosts,dc=example,dc=org',
      BINDDN: 'cn=reader,dc=example,dc=org',
      BINDPW: SECRETS.machineBind,
      SEARCHFILTER: '(objectClass=ipHost)',
      HOSTNAMEATTRIBUTE: 'cn',
      IPATTRIBUTE: 'ipHostNumber',
    });
    await post('/smtpserver/relay', {
      server: 'mail.example.org',
      username: 'mailer',
      password: SECRETS.smtp,
      description: DIRECTIVE,
    });
    await post('/smsgateway', {
      name: 'sms1',
      module: 'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider',
      'option.URL': 'https://sms.example.org/send',
      'option.HTTP_METHOD': 'POST',
      'option.CHECK_SSL': 'yes',
      'option.SEND_DATA_AS_JSON': 'no',
      'option.PASSWORD': SECRETS.sms,
      'header.X-Api-Secret': SECRETS.header,
    });
    await post('/radiusserver/rad1', { server: 'radius.example.org', secret: SECRETS.radius });
    const ca = makeTestCa(s.dataDir);
    const cakey = join(ca.dir, 'doc-key.pem');
    openssl(['pkey', '-in', ca.cakey, '-aes256', '-passout', `pass:${SECRETS.cakey}`, '-out', cakey]);
    await post('/caconnector/localca', {
      type: 'local',
      cacert: ca.cacert,
      cakey,
      password: SECRETS.cakey,
      templates: ca.templates,
    });
    await post('/event', {
      name: 'log `it`',
      event: 'token_init',
      handlermodule: 'Logging',
      action: 'logging',
      'option.message': 'event *{action}* for |{serial}|',
    });
    ok(
      await jsonCall(
        s,
        'POST',
        '/periodictask/',
        {
          name: 'cleanup',
          interval: '*/5 * * * *',
          nodes: s.rt.node,
          taskmodule: 'ChallengeCleanup',
          ordering: '2',
        },
        admin,
      ),
    );
    await importGpgKey(op, gpgArmor, undefined);
  }, 60_000);
  afterAll(async () => s?.close());

  const fetchDoc = (token = admin) =>
    fetch(`${s.url}/system/documentation`, { headers: { Authorization: token } });

  it('is a reStructuredText attachment that docutils renders, with every object and no secret', async () => {
    const res = await fetchDoc();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=documentation.rst');
    const rst = await res.text();
    for (const secret of Object.values(SECRETS)) expect(rst).not.toContain(secret);
    expect(rst).toContain('__CENSORED__');
    const html = renderRst(rst);
    expect(html).not.toMatch(/<em>|<strong>|<cite>|system-message|<ul|<ol|<a /);
    const text = htmlText(html).replace(/\s+/g, ' ');
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    for (const title of [
      'System configuration',
      'Administrators',
      'Resolvers',
      'Realms',
      'Policies',
      'Machine resolvers',
      'SMTP servers',
      'SMS gateways',
      'RADIUS servers',
      'CA connectors',
      'Event handlers',
      'Periodic tasks',
      'GnuPG keys for token files',
    ]) {
      expect(html).toContain(`>${title}</`);
    }
    for (const shown of [
      'smtp.example.org',
      'files',
      'corp',
      'BINDDN: cn=reader,dc=example,dc=org',
      'realm1',
      'Policy weird_policy_',
      NASTY,
      DIRECTIVE,
      '- list item',
      'otppin: userstore',
      'challenge_text: Type *the* code',
      'lab',
      'mail.example.org',
      'sms1',
      'https://sms.example.org/send',
      'radius.example.org',
      'localca',
      'vpn, webserver',
      'log `it`',
      'event *{action}* for |{serial}|',
      'ChallengeCleanup',
      '*/5 * * * *',
      gpgKeyid,
    ]) {
      expect(text).toContain(shown);
    }
  });

  it('needs system_documentation and writes an audit row per request', async () => {
    const audit = () =>
      s.rt.store.db
        .selectFrom('audit')
        .select(['success'])
        .where('action', '=', 'GET /system/documentation')
        .execute();
    const before = (await audit()).length;
    expect((await fetchDoc('')).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'configread' });
    try {
      const refused = await s.call('GET', '/system/documentation', {}, admin);
      expectServiceError(
        refused,
        303,
        'Admin actions are defined, but the action system_documentation is not allowed!',
      );
      await setPolicy(op, 'adm', { scope: 'admin', action: 'system_documentation' });
      expect((await fetchDoc()).status).toBe(200);
    } finally {
      await s.call('DELETE', '/policy/adm', {}, admin);
    }
    const rows = await audit();
    expect(rows.length - before).toBeGreaterThanOrEqual(2);
    expect(rows.slice(before).map((r) => Number(r.success))).toContain(0);
  });
});
