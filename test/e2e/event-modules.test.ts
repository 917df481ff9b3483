// The event handler modules Script, RequestMangler, ResponseMangler, CustomUserAttributes and
// UserNotification's sendsms and savefile over HTTP (reference 7.1): the script really runs with
// its arguments, the endpoint sees the changed request, the client gets the changed answer, the
// attribute appears and disappears through the user API, the SMS arrives at an HTTP gateway and
// the file is in the notification directory; each run with its PRE-/POST-EVENT audit row.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { type HttpSink, startHttpSink } from '../helpers/http-sink.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok, userToken } from '../helpers/user-stores.ts';

const HTTP_SMS = 'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider';

/** The scripts directory, the notification directory and where the scripts write. */
const root = mkdtempSync(join(tmpdir(), 'authsrv-event-modules-'));
const scriptsDir = join(root, 'scripts');
const notificationDir = join(root, 'notifications');
const outDir = join(root, 'out');
for (const d of [scriptsDir, notificationDir, outDir]) mkdirSync(d);

function script(name: string, body: string): void {
  writeFileSync(join(scriptsDir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(scriptsDir, name), 0o755);
}
// Writes its arguments, one a line, into out/<first word of its name>.
script('record.sh', `printf '%s\\n' "$@" > "${outDir}/record"\necho recorded`);
script('later.sh', `printf '%s\\n' "$@" > "${outDir}/later"`);
script('fail.sh', 'echo "no luck" >&2\nexit 3');
script('environment.sh', `env > "${outDir}/environment"`);
writeFileSync(join(scriptsDir, 'notes.txt'), 'not executable');
symlinkSync('/bin/true', join(scriptsDir, 'outside.sh'));

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each(testDialects())('event handler modules on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let sink: HttpSink;

  useTokenServer(
    dialect,
    {
      config: { 'event.scripts_dir': scriptsDir, 'event.notification_dir': notificationDir },
      realms: {
        realm1: [pwUser('alice', 1001, 'Alice Liddell,,+49 170 555,,alice@wonderland.example')],
        realm2: [pwUser('bob', 2001, 'Bob Builder')],
      },
      reset: ['policies', 'tokens', 'audit'],
    },
    (t) => ({ s, admin } = t),
  );
  beforeAll(async () => {
    sink = await startHttpSink();
  });
  afterAll(async () => {
    await sink.close();
  });
  afterEach(async () => {
    for (const d of ok(await s.call('GET', '/event/', {}, admin)) as { id: number }[]) {
      ok(await s.call('DELETE', `/event/${d.id}`, {}, admin));
    }
    await s.rt.store.db.deleteFrom('user_attribute').execute();
    await s.rt.store.db.deleteFrom('smsgateway_option').execute();
    await s.rt.store.db.deleteFrom('smsgateway').execute();
    sink.requests.length = 0;
    for (const d of [outDir, notificationDir]) {
      rmSync(d, { recursive: true, force: true });
      mkdirSync(d);
    }
  });

  const save = async (fields: Record<string, string>) =>
    ok(await s.call('POST', '/event', fields, admin)) as number;
  const definition = (
    handlermodule: string,
    action: string,
    options: Record<string, string>,
    more: Record<string, string> = {},
  ) => ({
    name: `${handlermodule} ${action}`,
    event: 'token_init',
    handlermodule,
    action,
    ...Object.fromEntries(Object.entries(options).map(([k, v]) => [`option.${k}`, v])),
    ...more,
  });
  const eventRows = () =>
    s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info', 'serial'])
      .where('action', 'like', '%-EVENT %')
      .orderBy('id')
      .execute();
  const enroll = (serial: string, extra: Record<string, string> = {}, token = admin) =>
    s.call('POST', '/token/init', { type: 'spass', serial, user: 'alice', realm: 'realm1', ...extra }, token);

  it('lists the modules, their positions and actions', async () => {
    expect(ok(await s.call('GET', '/event/handlermodules', {}, admin))).toEqual([
      'UserNotification',
      'Token',
      'Script',
      'Counter',
      'RequestMangler',
      'ResponseMangler',
      'Logging',
      'CustomUserAttributes',
      'WebHook',
    ]);
    expect(ok(await s.call('GET', '/event/positions/ResponseMangler', {}, admin))).toEqual(['post']);
    expect(ok(await s.call('GET', '/event/positions/Script', {}, admin))).toEqual(['post', 'pre']);
    // One action per executable file of the directory: not the text file, not the link leading out.
    const scripts = ok(await s.call('GET', '/event/actions/Script', {}, admin));
    expect(Object.keys(scripts)).toEqual(['environment.sh', 'fail.sh', 'later.sh', 'record.sh']);
    expect(scripts['record.sh'].background).toMatchObject({ required: true, value: ['background', 'wait'] });
    // (The answer's keys are sorted.)
    expect(Object.keys(scripts['record.sh'])).toEqual(
      [
        'background',
        'raise_error',
        'sync_to_database',
        'serial',
        'user',
        'realm',
        'logged_in_user',
        'logged_in_role',
      ].sort(),
    );
    expect(Object.keys(ok(await s.call('GET', '/event/actions/RequestMangler', {}, admin)))).toEqual([
      'delete',
      'set',
    ]);
    expect(ok(await s.call('GET', '/event/actions/ResponseMangler', {}, admin)).set.type.value).toEqual([
      'string',
      'integer',
      'bool',
    ]);
    expect(Object.keys(ok(await s.call('GET', '/event/actions/CustomUserAttributes', {}, admin)))).toEqual([
      'delete_custom_user_attributes',
      'set_custom_user_attributes',
    ]);
    expect(Object.keys(ok(await s.call('GET', '/event/actions/UserNotification', {}, admin)))).toEqual([
      'savefile',
      'sendmail',
      'sendsms',
    ]);
  });

  it('refuses unknown actions, missing options and impossible positions, storing nothing', async () => {
    const refused: [Record<string, string>, RegExp][] = [
      [definition('Script', 'nosuch.sh', { background: 'wait' }), /no action nosuch.sh/],
      [definition('Script', 'notes.txt', { background: 'wait' }), /no action notes.txt/],
      [definition('Script', 'outside.sh', { background: 'wait' }), /no action outside.sh/],
      [definition('Script', '../scripts/record.sh', { background: 'wait' }), /no action/],
      [definition('Script', 'record.sh', {}), /needs the option background/],
      [definition('RequestMangler', 'rename', { parameter: 'user' }), /no action rename/],
      [definition('RequestMangler', 'set', { parameter: 'realm' }), /needs the option value/],
      [
        definition('ResponseMangler', 'delete', { 'JSON pointer': '/detail' }, { position: 'pre' }),
        /no position pre/,
      ],
      [
        definition('ResponseMangler', 'set', { 'JSON pointer': '/detail/x', value: '1' }),
        /needs the option type/,
      ],
      [
        definition('CustomUserAttributes', 'set_custom_user_attributes', { attrkey: 'k' }),
        /needs the option user/,
      ],
      [definition('UserNotification', 'sendsms', { To: 'tokenowner' }), /needs the option smsconfig/],
      [definition('UserNotification', 'savefile', { filename: 'x' }), /needs the option body/],
      [
        definition('UserNotification', 'savefile', { filename: 'x', body: 'y', colour: 'red' }),
        /no option colour/,
      ],
    ];
    for (const [fields, message] of refused) {
      expectServiceError(await s.call('POST', '/event', fields, admin), 905, message);
    }
    expect(await s.rt.store.db.selectFrom('eventhandler').selectAll().execute()).toEqual([]);
  });

  describe('Script', () => {
    it('runs the script, waiting, with the arguments the options ask for', async () => {
      await save(
        definition('Script', 'record.sh', {
          background: 'wait',
          serial: '1',
          user: '1',
          realm: '1',
          logged_in_user: '1',
          logged_in_role: '1',
        }),
      );
      ok(await enroll('SC1'));
      expect(readFileSync(join(outDir, 'record'), 'utf8').split('\n')).toEqual([
        '--serial',
        'SC1',
        '--user',
        'alice',
        '--realm',
        'realm1',
        '--logged_in_user',
        'admin',
        '--logged_in_role',
        'admin',
        '',
      ]);
      expect(await eventRows()).toEqual([
        {
          action: 'POST-EVENT token_init>>Script:record.sh',
          success: 1,
          info: 'Script record.sh',
          serial: 'SC1',
        },
      ]);
    });

    it('passes no argument without options, and runs in the background', async () => {
      await save(definition('Script', 'later.sh', { background: 'background' }, { position: 'pre' }));
      ok(await enroll('SC2'));
      await vi.waitFor(() => expect(existsSync(join(outDir, 'later'))).toBe(true));
      expect(readFileSync(join(outDir, 'later'), 'utf8')).toBe('\n');
      expect((await eventRows()).map((r) => [r.action, r.success])).toEqual([
        ['PRE-EVENT token_init>>Script:later.sh', 1],
      ]);
    });

    it('fails the run of a failing script, and with raise_error the request', async () => {
      const quiet = await save(definition('Script', 'fail.sh', { background: 'wait' }));
      ok(await enroll('SC3'));
      ok(await s.call('DELETE', `/event/${quiet}`, {}, admin));
      await save(
        definition('Script', 'fail.sh', { background: 'wait', raise_error: 'True' }, { position: 'pre' }),
      );
      const r = await enroll('SC4');
      expectServiceError(r, 10, 'The event handler script fail.sh failed: it exited with status 3.');
      // Pre: the endpoint did not run.
      expect(
        await s.rt.store.db.selectFrom('token').select('serial').where('serial', '=', 'SC4').execute(),
      ).toEqual([]);
      expect((await eventRows()).map((r) => [r.action, r.success])).toEqual([
        ['POST-EVENT token_init>>Script:fail.sh', 0],
        ['PRE-EVENT token_init>>Script:fail.sh', 0],
      ]);
      const request = await s.rt.store.db
        .selectFrom('audit')
        .select(['success', 'info'])
        .where('action', '=', 'POST /token/init')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(request.success).toBe(0);
    });

    it("aborts a request post, after the endpoint's work, and gives the script only PATH and LANG", async () => {
      process.env.AUTHSRV_EVENT_TEST_SECRET = 'do-not-pass';
      try {
        await save(definition('Script', 'environment.sh', { background: 'wait' }));
        await save(
          definition('Script', 'fail.sh', { background: 'wait', raise_error: 'true' }, { ordering: '1' }),
        );
        expectServiceError(await enroll('SC6'), 10, /fail.sh failed/);
      } finally {
        delete process.env.AUTHSRV_EVENT_TEST_SECRET;
      }
      const names = readFileSync(join(outDir, 'environment'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('=')[0]);
      expect(names.filter((n) => !['PATH', 'LANG', 'PWD', 'SHLVL', '_', 'OLDPWD'].includes(n ?? ''))).toEqual(
        [],
      );
      // Post: the token was enrolled before the script failed.
      expect(
        await s.rt.store.db.selectFrom('token').select('serial').where('serial', '=', 'SC6').execute(),
      ).toEqual([{ serial: 'SC6' }]);
    });

    it('fails the run of a script removed since its definition was saved', async () => {
      script('gone.sh', 'exit 0');
      await save(definition('Script', 'gone.sh', { background: 'wait', raise_error: '1' }));
      rmSync(join(scriptsDir, 'gone.sh'));
      ok(await enroll('SC5'));
      expect((await eventRows()).map((r) => [r.action, r.success])).toEqual([
        ['POST-EVENT token_init>>Script:gone.sh', 0],
      ]);
    });
  });

  describe('RequestMangler', () => {
    const check = (params: Record<string, string>) => s.call('POST', '/validate/check', params);
    beforeAll(async () => {
      await s.rt.store.db.deleteFrom('token').where('serial', '=', 'RM1').execute();
    });

    it('sets parameters from the groups of a pattern, so that the endpoint checks another user', async () => {
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'spass', pin: 'bobpin', serial: 'RM1', user: 'bob', realm: 'realm2' },
          admin,
        ),
      );
      // bob.realm2 is nobody's login: the check fails.
      expect((await check({ user: 'bob.realm2', pass: 'bobpin' })).json.result.value).not.toBe(true);
      const mangle = (parameter: string, value: string, ordering: string) =>
        save(
          definition(
            'RequestMangler',
            'set',
            { parameter, value, match_parameter: 'user', match_pattern: '(\\w+)\\.(\\w+)$' },
            { event: 'validate_check', position: 'pre', ordering, name: `set ${parameter}` },
          ),
        );
      await mangle('realm', '{1}', '1');
      await mangle('user', '{0}', '2');
      expect(ok(await check({ user: 'bob.realm2', pass: 'bobpin' }))).toBe(true);
      // The pattern does not match: nothing changes, the run is no failure.
      expect(ok(await check({ user: 'bob', realm: 'realm2', pass: 'bobpin' }))).toBe(true);
      const rows = (await eventRows()).filter((r) => r.action.includes('RequestMangler'));
      expect(rows.map((r) => [r.action, r.info, r.success])).toEqual([
        ['PRE-EVENT validate_check>>RequestMangler:set', 'set realm', 1],
        ['PRE-EVENT validate_check>>RequestMangler:set', 'set user', 1],
        ['PRE-EVENT validate_check>>RequestMangler:set', 'set realm', 1],
        ['PRE-EVENT validate_check>>RequestMangler:set', 'set user', 1],
      ]);
    });

    it('deletes a parameter before the endpoint reads it', async () => {
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'spass', pin: 'bobpin', serial: 'RM2', user: 'bob', realm: 'realm2' },
          admin,
        ),
      );
      expect(ok(await check({ serial: 'RM2', pass: 'bobpin' }))).toBe(true);
      await save(
        definition(
          'RequestMangler',
          'delete',
          { parameter: 'pass' },
          { event: 'validate_check', position: 'pre' },
        ),
      );
      // The endpoint reads no password: the PIN is wrong.
      const r = await check({ serial: 'RM2', pass: 'bobpin' });
      expect(ok(r)).toBe(false);
      expect(r.json.detail.message).toBe('wrong otp pin');
    });
  });

  describe('ResponseMangler', () => {
    it('deletes and sets members of the answer the client gets', async () => {
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'spass', pin: 'bobpin', serial: 'RS1', user: 'bob', realm: 'realm2' },
          admin,
        ),
      );
      const before = await s.call('POST', '/validate/check', { serial: 'RS1', pass: 'bobpin' });
      expect(before.json.detail.message).toEqual(expect.any(String));
      const mangle = (action: string, options: Record<string, string>, ordering: string) =>
        save(definition('ResponseMangler', action, options, { event: 'validate_check', ordering }));
      await mangle('delete', { 'JSON pointer': '/detail/message' }, '1');
      await mangle('set', { 'JSON pointer': '/detail/site', type: 'string', value: 'north' }, '2');
      await mangle('set', { 'JSON pointer': '/detail/extra/count', type: 'integer', value: '42' }, '3');
      await mangle('set', { 'JSON pointer': '/result/value', type: 'bool', value: 'False' }, '4');
      // A pointer into a value that is no object changes nothing.
      await mangle('set', { 'JSON pointer': '/version/x', type: 'string', value: 'y' }, '5');
      const after = await s.call('POST', '/validate/check', { serial: 'RS1', pass: 'bobpin' });
      expect(after.json.detail.message).toBeUndefined();
      expect(after.json.detail).toMatchObject({ site: 'north', extra: { count: 42 }, serial: 'RS1' });
      expect(after.json.result.value).toBe(false);
      expect(typeof after.json.version).toBe('string');
      expect((await eventRows()).map((r) => [r.action, r.success])).toEqual([
        ['POST-EVENT validate_check>>ResponseMangler:delete', 1],
        ['POST-EVENT validate_check>>ResponseMangler:set', 1],
        ['POST-EVENT validate_check>>ResponseMangler:set', 1],
        ['POST-EVENT validate_check>>ResponseMangler:set', 1],
        ['POST-EVENT validate_check>>ResponseMangler:set', 1],
      ]);
    });

    it('fails a run with a malformed pointer or value, changing nothing', async () => {
      await save(definition('ResponseMangler', 'delete', { 'JSON pointer': 'detail' }, { name: 'no slash' }));
      await save(
        definition('ResponseMangler', 'delete', { 'JSON pointer': '/a/b/c/d' }, { name: 'too deep' }),
      );
      await save(
        definition(
          'ResponseMangler',
          'set',
          { 'JSON pointer': '/detail/n', type: 'integer', value: 'ten' },
          { name: 'nan' },
        ),
      );
      const r = await enroll('RS2');
      expect(r.json.detail.serial).toBe('RS2');
      expect(r.json.detail.n).toBeUndefined();
      expect((await eventRows()).map((row) => [row.info, row.success])).toEqual([
        ['no slash', 0],
        ['too deep', 0],
        ['nan', 0],
      ]);
    });
  });

  describe('CustomUserAttributes', () => {
    const attributes = async () =>
      ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1' }, admin)) as Record<
        string,
        string
      >;

    it("sets and deletes an attribute of the token's owner, seen through the user API", async () => {
      const set = await save(
        definition('CustomUserAttributes', 'set_custom_user_attributes', {
          user: 'tokenowner',
          attrkey: 'department',
          attrvalue: 'sales',
        }),
      );
      ok(await enroll('CU1'));
      expect(await attributes()).toEqual({ department: 'sales' });
      ok(await s.call('DELETE', `/event/${set}`, {}, admin));
      await save(
        definition(
          'CustomUserAttributes',
          'delete_custom_user_attributes',
          { user: 'tokenowner', attrkey: 'department' },
          { event: 'token_disable' },
        ),
      );
      ok(await s.call('POST', '/token/disable', { serial: 'CU1' }, admin));
      expect(await attributes()).toEqual({});
      expect((await eventRows()).map((r) => [r.action, r.success, r.serial])).toEqual([
        ['POST-EVENT token_init>>CustomUserAttributes:set_custom_user_attributes', 1, 'CU1'],
        ['POST-EVENT token_disable>>CustomUserAttributes:delete_custom_user_attributes', 1, 'CU1'],
      ]);
    });

    it('sets an attribute of the logged-in user, and fails without one or with a reserved key', async () => {
      await save(
        definition(
          'CustomUserAttributes',
          'set_custom_user_attributes',
          { user: 'logged_in_user', attrkey: 'seen', attrvalue: 'yes' },
          { event: 'token_list', name: 'seen' },
        ),
      );
      await save(
        definition(
          'CustomUserAttributes',
          'set_custom_user_attributes',
          { user: 'logged_in_user', attrkey: 'authsrv.internal', attrvalue: 'x' },
          { event: 'token_list', name: 'reserved' },
        ),
      );
      const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
      ok(await s.call('GET', '/token/', {}, alice));
      expect(await attributes()).toEqual({ seen: 'yes' });
      // An administrator is no user: nothing to set.
      ok(await s.call('GET', '/token/', {}, admin));
      expect((await eventRows()).map((r) => [r.info, r.success])).toEqual([
        ['seen', 1],
        ['reserved', 0],
        ['seen', 0],
        ['reserved', 0],
      ]);
    });
  });

  describe('UserNotification', () => {
    const gateway = async () =>
      ok(
        await s.call(
          'POST',
          '/smsgateway',
          {
            name: 'gw',
            module: HTTP_SMS,
            'option.URL': `${sink.url}/send`,
            'option.HTTP_METHOD': 'POST',
            'option.CHECK_SSL': 'no',
            'option.SEND_DATA_AS_JSON': 'no',
            'option.text': '{otp}',
            'option.to': '{phone}',
          },
          admin,
        ),
      );

    it('sends an SMS to the mobile number of the token owner through an HTTP gateway', async () => {
      await gateway();
      await save(
        definition('UserNotification', 'sendsms', {
          smsconfig: 'gw',
          To: 'tokenowner',
          body: 'Token {serial} ({tokentype}) enrolled for {user} by {admin}',
        }),
      );
      ok(await enroll('UN1'));
      expect(sink.requests).toHaveLength(1);
      const form = new URLSearchParams(sink.requests[0]?.body);
      expect(form.get('to')).toBe('+49 170 555');
      expect(form.get('text')).toBe('Token UN1 (spass) enrolled for alice by admin');
      expect((await eventRows()).map((r) => [r.action, r.success])).toEqual([
        ['POST-EVENT token_init>>UserNotification:sendsms', 1],
      ]);
    });

    it('fails the run for an unknown gateway and for a user without mobile number', async () => {
      const unknown = await save(
        definition(
          'UserNotification',
          'sendsms',
          { smsconfig: 'nosuch', To: 'tokenowner' },
          { name: 'unknown' },
        ),
      );
      ok(await enroll('UN2'));
      ok(await s.call('DELETE', `/event/${unknown}`, {}, admin));
      await gateway();
      await save(
        definition('UserNotification', 'sendsms', { smsconfig: 'gw', To: 'tokenowner' }, { name: 'bob' }),
      );
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'spass', serial: 'UN3', user: 'bob', realm: 'realm2' },
          admin,
        ),
      );
      expect(sink.requests).toEqual([]);
      expect((await eventRows()).map((r) => [r.info, r.success])).toEqual([
        ['unknown', 0],
        ['bob', 0],
      ]);
    });

    it('saves a file with tags into the notification directory, never outside it', async () => {
      await save(
        definition('UserNotification', 'savefile', {
          filename: 'token-{serial}.txt',
          body: '{serial} of {user}@{realm} by {admin}',
        }),
      );
      await save(
        definition(
          'UserNotification',
          'savefile',
          { filename: '../escaped-{serial}', body: 'x' },
          { name: 'escape' },
        ),
      );
      ok(await enroll('SF1'));
      expect(readFileSync(join(notificationDir, 'token-SF1.txt'), 'utf8')).toBe(
        'SF1 of alice@realm1 by admin',
      );
      expect(existsSync(join(root, 'escaped-SF1'))).toBe(false);
      expect((await eventRows()).map((r) => [r.info, r.success])).toEqual([
        ['UserNotification savefile', 1],
        ['escape', 0],
      ]);
    });

    it('does not write through a symbolic link in the notification directory', async () => {
      const target = join(outDir, 'target');
      writeFileSync(target, 'untouched');
      symlinkSync(target, join(notificationDir, 'token-SF2.txt'));
      await save(
        definition('UserNotification', 'savefile', { filename: 'token-{serial}.txt', body: 'changed' }),
      );
      ok(await enroll('SF2'));
      expect(readFileSync(target, 'utf8')).toBe('untouched');
      expect((await eventRows()).map((r) => r.success)).toEqual([0]);
    });
  });
});
