import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectServiceError, jsonCall, ok, userToken, writePasswdFile } from '../helpers/user-stores.ts';

describe.each(testDialects())('/policy on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  beforeAll(async () => {
    s = await startTestServer({ dialect, config: { 'security.superuser_realms': 'adminrealm' } });
    admin = await s.adminToken();
    const file = await writePasswdFile(s.dataDir, 'passwd', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
    ]);
    ok(await s.call('POST', '/resolver/res1', { type: 'passwdresolver', Filename: file }, admin));
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'res1' }, admin));
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'res1' }, admin));
    ok(await s.call('POST', '/realm/adminrealm', { resolvers: 'res1' }, admin));
    // The admin policies these tests create would lock the test administrator out: this one keeps
    // every right for it, and the listings below leave it out.
    ok(await s.call('POST', `/policy/${GRANT}`, { scope: 'admin', action: '*', adminuser: 'admin' }, admin));
  });
  afterAll(async () => s?.close());

  const GRANT = 'test-admin-grant';
  const all = async () => {
    const v = ok(await s.call('GET', '/policy/', {}, admin));
    delete v[GRANT];
    return v;
  };
  const rowCount = async () => (await s.rt.store.db.selectFrom('policy').select('id').execute()).length;
  const version = async () =>
    (
      await s.rt.store.db
        .selectFrom('meta')
        .select('value')
        .where('name', '=', 'policy_version')
        .executeTakeFirst()
    )?.value;

  it('starts empty', async () => {
    expect(await all()).toEqual({});
    expect(ok(await s.call('GET', '/policy/nothere', {}, admin))).toEqual({});
  });

  it('creates a policy from form fields with comma lists; value {"setPolicy <name>": id}', async () => {
    const v = ok(
      await s.call(
        'POST',
        '/policy/pol1',
        {
          scope: 'admin',
          action: 'tokenlist, enable=1, -delete, auditlog_age=5d',
          realm: 'realm1, realm2',
          adminrealm: 'adminrealm',
          adminuser: 'boss, helper.*',
          user: 'alice, !bob',
          resolver: 'res1',
          client: '10.0.0.0/8, !10.1.0.0/16',
          time: 'Mon-Fri: 08:00-18:00',
          servicenode: 'test-node',
          user_agents: 'privacyIDEA-LDAP-Proxy',
          priority: '3',
          check_all_resolvers: 'true',
          user_case_insensitive: '1',
          description: 'first',
          conditions: JSON.stringify([['userinfo', 'groups', 'contains', 'admins', true]]),
        },
        admin,
      ),
    );
    expect(Object.keys(v)).toEqual(['setPolicy pol1']);
    expect(v['setPolicy pol1']).toEqual(expect.any(Number));
    expect(await all()).toEqual({
      pol1: {
        name: 'pol1',
        scope: 'admin',
        action: { tokenlist: true, enable: true, '-delete': true, auditlog_age: '5d' },
        active: true,
        realm: ['realm1', 'realm2'],
        resolver: ['res1'],
        user: ['alice', '!bob'],
        adminrealm: ['adminrealm'],
        adminuser: ['boss', 'helper.*'],
        client: ['10.0.0.0/8', '!10.1.0.0/16'],
        servicenode: ['test-node'],
        pinode: ['test-node'],
        user_agents: ['privacyIDEA-LDAP-Proxy'],
        time: 'Mon-Fri: 08:00-18:00',
        priority: 3,
        check_all_resolvers: true,
        user_case_insensitive: true,
        conditions: [['userinfo', 'groups', 'contains', 'admins', true]],
        description: 'first',
      },
    });
  });

  it('takes JSON arrays, JSON booleans and an action object', async () => {
    const v = ok(
      await jsonCall(
        s,
        'POST',
        '/policy/pol2',
        {
          scope: 'authentication',
          action: { otppin: 'userstore', passOnNoToken: true },
          realm: ['realm1'],
          user: ['a{1,3}'],
          active: false,
          conditions: [['Request Data', 'x', 'equals', 'y', false, 'condition_is_true']],
        },
        admin,
      ),
    );
    const id = v['setPolicy pol2'];
    const p = ok(await s.call('GET', '/policy/pol2', {}, admin));
    expect(Object.keys(p)).toEqual(['pol2']);
    expect(p.pol2).toMatchObject({
      action: { otppin: 'userstore', passOnNoToken: true },
      realm: ['realm1'],
      user: ['a{1,3}'],
      active: false,
      priority: 1,
      check_all_resolvers: false,
      description: null,
      time: '',
      conditions: [['Request Data', 'x', 'equals', 'y', false, 'condition_is_true']],
    });
    expect(id).toEqual(expect.any(Number));
  });

  it("reads a condition's active flag with privacyIDEA's is_true (issue 15: 'yes' and 'on' were true)", async () => {
    const flags = ['TRUE', 'true', '1', 'yes', 'on', 'false'];
    const conditions = flags.map((f, i) => ['Request Data', `k${i}`, 'equals', 'v', f]);
    ok(
      await jsonCall(s, 'POST', '/policy/truth', { scope: 'admin', action: 'tokenlist', conditions }, admin),
    );
    try {
      const p = ok(await s.call('GET', '/policy/truth', {}, admin));
      expect(p.truth.conditions.map((c: unknown[]) => c[4])).toEqual([true, true, true, false, false, false]);
    } finally {
      ok(await s.call('DELETE', '/policy/truth', {}, admin));
    }
  });

  it('update keeps omitted lists, time, conditions and action; rewrites priority, description and flags', async () => {
    const before = (await all()).pol1;
    const v0 = await version();
    const v = ok(await s.call('POST', '/policy/pol1', { scope: 'admin', user: 'carol' }, admin));
    const id = v['setPolicy pol1'];
    const after = (await all()).pol1;
    expect(after).toEqual({
      ...before,
      user: ['carol'],
      priority: 1,
      description: null,
      check_all_resolvers: false,
      user_case_insensitive: false,
      active: true,
    });
    expect(Number(await version())).toBe(Number(v0) + 1);
    // Same id on update.
    const again = ok(await s.call('POST', '/policy/pol1', { scope: 'admin', action: 'tokenlist' }, admin));
    expect(again['setPolicy pol1']).toBe(id);
    expect((await all()).pol1.action).toEqual({ tokenlist: true });
    expect((await all()).pol1.realm).toEqual(['realm1', 'realm2']);
    // An empty value clears a list.
    ok(await s.call('POST', '/policy/pol1', { scope: 'admin', realm: '', conditions: '' }, admin));
    expect((await all()).pol1).toMatchObject({ realm: [], conditions: [] });
  });

  it('allows the user scope without action', async () => {
    ok(await s.call('POST', '/policy/userpol', { scope: 'user', active: 'false' }, admin));
    expect((await all()).userpol).toMatchObject({ action: {}, active: false });
    ok(await s.call('DELETE', '/policy/userpol', {}, admin));
  });

  it('filters by name, realm, scope and active', async () => {
    ok(
      await s.call(
        'POST',
        '/policy/pol3',
        { scope: 'admin', action: 'tokenlist', realm: 'realm1, realm2' },
        admin,
      ),
    );
    const names = async (q: Record<string, string>) =>
      Object.keys(ok(await s.call('GET', '/policy/', q, admin))).filter((n) => n !== GRANT);
    expect(await names({ scope: 'admin' })).toEqual(['pol1', 'pol3']);
    expect(await names({ scope: 'auth*' })).toEqual(['pol2']);
    expect(await names({ realm: 'realm1' })).toEqual(['pol2']);
    expect(await names({ realm: '*REALM2*' })).toEqual(['pol3']);
    expect(await names({ active: 'false' })).toEqual(['pol2']);
    expect(await names({ active: 'true' })).toEqual(['pol1', 'pol3']);
    expect(await names({ name: 'pol3' })).toEqual(['pol3']);
    expect(Object.keys(ok(await s.call('GET', '/policy/pol3', { scope: 'user' }, admin)))).toEqual([]);
  });

  describe('validation: every error changes nothing', () => {
    const cases: [string, string, Record<string, string>, RegExp][] = [
      ['missing scope', 'bad', { action: 'tokenlist' }, /Missing parameter: 'scope'/],
      ['missing action', 'bad', { scope: 'admin' }, /Missing parameter: 'action'/],
      ['invalid scope', 'bad', { scope: 'nosuch', action: 'x' }, /Invalid scope 'nosuch'/],
      [
        'unknown action',
        'bad',
        { scope: 'admin', action: 'tokenlist, nosuchaction' },
        /Invalid actions \['nosuchaction'\]/,
      ],
      [
        'bad action value',
        'bad',
        { scope: 'authentication', action: 'otppin=nonsense' },
        /Invalid value 'nonsense'/,
      ],
      [
        'unknown realm',
        'bad',
        { scope: 'admin', action: 'tokenlist', realm: 'realm1, nosuch' },
        /Undefined User-Realms: \['nosuch'\]!/,
      ],
      [
        'unknown admin realm',
        'bad',
        { scope: 'admin', action: 'tokenlist', adminrealm: 'realm1' },
        /Undefined Admin-Realms: \['realm1'\]!/,
      ],
      [
        'unknown resolver',
        'bad',
        { scope: 'admin', action: 'tokenlist', resolver: 'nores' },
        /Undefined Resolvers: \['nores'\]!/,
      ],
      [
        'unknown node',
        'bad',
        { scope: 'admin', action: 'tokenlist', servicenode: 'other-node' },
        /Undefined Nodes/,
      ],
      ['bad time', 'bad', { scope: 'admin', action: 'tokenlist', time: 'Monday 9 to 5' }, /Invalid time/],
      [
        'bad client',
        'bad',
        { scope: 'admin', action: 'tokenlist', client: '10.0.0.0/33' },
        /Invalid client definition/,
      ],
      ['bad regex', 'bad', { scope: 'admin', action: 'tokenlist', user: 'a(b' }, /Invalid user 'a\(b'/],
      [
        'priority 0',
        'bad',
        { scope: 'admin', action: 'tokenlist', priority: '0' },
        /Priority must be at least 1/,
      ],
      [
        'priority text',
        'bad',
        { scope: 'admin', action: 'tokenlist', priority: 'high' },
        /Priority must be a whole number/,
      ],
      [
        'conditions not JSON',
        'bad',
        { scope: 'admin', action: 'tokenlist', conditions: '[[' },
        /Invalid conditions/,
      ],
      [
        'condition of 4 items',
        'bad',
        { scope: 'admin', action: 'tokenlist', conditions: '[["userinfo","a","equals","b"]]' },
        /Invalid condition 1/,
      ],
      [
        'unknown section',
        'bad',
        { scope: 'admin', action: 'tokenlist', conditions: '[["nosection","a","equals","b",true]]' },
        /unknown section 'nosection'/,
      ],
      [
        'unknown comparator',
        'bad',
        { scope: 'admin', action: 'tokenlist', conditions: '[["userinfo","a","likes","b",true]]' },
        /Unknown comparator 'likes'/,
      ],
      [
        'bad handle_missing_data',
        'bad',
        { scope: 'admin', action: 'tokenlist', conditions: '[["userinfo","a","equals","b",true,"shrug"]]' },
        /Unknown handle_missing_data/,
      ],
      [
        'bad condition regex',
        'bad',
        { scope: 'admin', action: 'tokenlist', conditions: '[["userinfo","a","matches","(",false]]' },
        /Invalid regular expression/,
      ],
      [
        'name with invalid characters',
        'bad%24name',
        { scope: 'admin', action: 'tokenlist' },
        /may only contain the characters/,
      ],
      [
        'name with a space',
        'bad%20name',
        { scope: 'admin', action: 'tokenlist' },
        /must not contain white spaces/,
      ],
      [
        'reserved name pi-update-policy-',
        'pi-update-policy-x',
        { scope: 'admin', action: 'tokenlist' },
        /Invalid policy name: pi-update-policy-x/,
      ],
      // An update that would break the stored policy also leaves it as it was.
      [
        'update to an unknown realm',
        'pol3',
        { scope: 'admin', action: 'tokenlist', realm: 'nosuch' },
        /Undefined User-Realms/,
      ],
      [
        'update to a scope without the kept action',
        'pol3',
        { scope: 'user' },
        /Invalid actions \['tokenlist'\]/,
      ],
    ];
    it.each(cases)('%s → ERR905', async (_label, name, params, message) => {
      const before = await all();
      const v = await version();
      const count = await rowCount();
      expectServiceError(await s.call('POST', `/policy/${name}`, params, admin), 905, message);
      expect(await all()).toEqual(before);
      expect(await version()).toBe(v);
      expect(await rowCount()).toBe(count);
    });

    it('GET /policy/check is not a policy name, and "check" cannot be created (it is a path)', async () => {
      // POST /policy/check reaches the name rule.
      expectServiceError(
        await s.call('POST', '/policy/Check', { scope: 'admin', action: 'tokenlist' }, admin),
        905,
        'Invalid policy name: Check',
      );
    });
  });

  it('enable and disable return the database id and move the change counter', async () => {
    const id = (
      await s.rt.store.db
        .selectFrom('policy')
        .select('id')
        .where('name', '=', 'pol3')
        .executeTakeFirstOrThrow()
    ).id;
    const v0 = Number(await version());
    expect(ok(await s.call('POST', '/policy/disable/pol3', {}, admin))).toBe(Number(id));
    expect((await all()).pol3.active).toBe(false);
    expect(ok(await s.call('POST', '/policy/enable/pol3', {}, admin))).toBe(Number(id));
    expect((await all()).pol3.active).toBe(true);
    expect(Number(await version())).toBe(v0 + 2);
  });

  it('unknown name → ERR601 on delete, enable and disable', async () => {
    const v = await version();
    for (const [method, path] of [
      ['DELETE', '/policy/nosuch'],
      ['POST', '/policy/enable/nosuch'],
      ['POST', '/policy/disable/nosuch'],
    ] as const) {
      expectServiceError(
        await s.call(method, path, {}, admin),
        601,
        'The requested Policy could not be found.',
      );
    }
    expect(await version()).toBe(v);
  });

  it('GET /policy/check answers allowed true with the policies, false without', async () => {
    ok(
      await s.call(
        'POST',
        '/policy/chk',
        {
          scope: 'authentication',
          action: 'otppin=userstore',
          realm: 'realm1',
          user: 'alice',
          client: '192.168.0.0/24',
        },
        admin,
      ),
    );
    const check = async (q: Record<string, string>) => ok(await s.call('GET', '/policy/check', q, admin));
    const yes = await check({
      scope: 'authentication',
      action: 'otppin',
      realm: 'realm1',
      user: 'alice',
      client: '192.168.0.7',
    });
    expect(yes.allowed).toBe(true);
    expect(yes.policy.map((p: { name: string }) => p.name)).toEqual(['chk']);
    expect(yes.policy[0].action).toEqual({ otppin: 'userstore' });
    expect(
      await check({ scope: 'authentication', action: 'otppin', realm: 'realm1', user: 'bob' }),
    ).toMatchObject({
      allowed: false,
      policy: [],
    });
    expect(
      (
        await check({
          scope: 'authentication',
          action: 'otppin',
          realm: 'realm1',
          user: 'alice',
          client: '10.9.9.9',
        })
      ).allowed,
    ).toBe(false);
    expect(
      (await check({ scope: 'authentication', action: 'passthru', realm: 'realm1', user: 'alice' })).allowed,
    ).toBe(false);
    // A disabled policy does not match.
    ok(await s.call('POST', '/policy/disable/chk', {}, admin));
    expect(
      (await check({ scope: 'authentication', action: 'otppin', realm: 'realm1', user: 'alice' })).allowed,
    ).toBe(false);
    expectServiceError(
      await s.call('GET', '/policy/check', { scope: 'admin' }, admin),
      905,
      "Missing parameter: 'action'",
    );
  });

  it('GET /policy/defs gives every scope; /defs/<scope>, conditions and servicenodes', async () => {
    const defs = ok(await s.call('GET', '/policy/defs', {}, admin));
    expect(Object.keys(defs)).toEqual(expect.arrayContaining(['admin', 'user', 'authentication', 'webui']));
    expect(defs.admin.tokenlist).toMatchObject({
      type: 'bool',
      desc: expect.any(String),
      group: expect.any(String),
    });
    const admin1 = ok(await s.call('GET', '/policy/defs/admin', {}, admin));
    expect(admin1).toEqual(defs.admin);
    const cond = ok(await s.call('GET', '/policy/defs/conditions', {}, admin));
    expect(Object.keys(cond)).toEqual(expect.arrayContaining(['sections', 'comparators']));
    expect(cond.sections.userinfo).toEqual({ description: expect.any(String) });
    expect(cond.comparators.equals).toEqual({ description: expect.any(String) });
    expect(ok(await s.call('GET', '/policy/defs/servicenodes', {}, admin))).toEqual(['test-node']);
    expect(ok(await s.call('GET', '/policy/defs/nosuchscope', {}, admin))).toEqual({});
  });

  it('deletes a policy and returns its id', async () => {
    const id = (
      await s.rt.store.db
        .selectFrom('policy')
        .select('id')
        .where('name', '=', 'pol2')
        .executeTakeFirstOrThrow()
    ).id;
    expect(ok(await s.call('DELETE', '/policy/pol2', {}, admin))).toBe(Number(id));
    expect(ok(await s.call('GET', '/policy/pol2', {}, admin))).toEqual({});
  });

  async function upload(text: string, token = admin) {
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'text/plain' }), 'policies.txt');
    const res = await fetch(`${s.url}/policy/import/policies.txt`, {
      method: 'POST',
      headers: { Authorization: token, Accept: 'application/json' },
      body: form,
    });
    const text2 = await res.text();
    return { status: res.status, text: text2, headers: res.headers, json: JSON.parse(text2) };
  }

  it('renames a policy with PATCH /policy/<old_name>', async () => {
    const id = ok(await s.call('POST', '/policy/oldname', { scope: 'admin', action: 'tokenlist' }, admin))[
      'setPolicy oldname'
    ];
    ok(await s.call('POST', '/policy/taken', { scope: 'admin', action: 'tokenlist' }, admin));
    expect(ok(await s.call('PATCH', '/policy/oldname', { name: 'newname' }, admin))).toBe(id);
    const names = Object.keys(await all());
    expect(names).toContain('newname');
    expect(names).not.toContain('oldname');
    expectServiceError(
      await s.call('PATCH', '/policy/newname', { name: 'taken' }, admin),
      905,
      /already exists/,
    );
    expectServiceError(await s.call('PATCH', '/policy/newname', { name: 'bad name' }, admin), 905);
    expectServiceError(await s.call('PATCH', '/policy/newname', {}, admin), 905);
    expectServiceError(await s.call('PATCH', '/policy/nothere', { name: 'x' }, admin), 601);
    expect(Object.keys(await all())).toContain('newname');
    ok(await s.call('DELETE', '/policy/newname', {}, admin));
    ok(await s.call('DELETE', '/policy/taken', {}, admin));
  });

  it('exports every field and imports the file back unchanged, in one transaction', async () => {
    ok(
      await jsonCall(
        s,
        'POST',
        '/policy/full',
        {
          scope: 'admin',
          action: 'tokenlist, auditlog_age=5d, -delete',
          realm: ['realm1'],
          adminrealm: ['adminrealm'],
          adminuser: ['boss'],
          user: ['a{1,3}', '!bob'],
          resolver: ['res1'],
          client: ['10.0.0.0/8'],
          servicenode: ['test-node'],
          user_agents: ['privacyIDEA-CP'],
          time: 'Mon-Fri: 08:00-18:00, Sat: 9-12',
          priority: 4,
          active: false,
          check_all_resolvers: true,
          user_case_insensitive: true,
          conditions: [['userinfo', 'groups', 'contains', 'it\'s, "quoted"', true, 'condition_is_false']],
          description: 'line with = and , and ]',
        },
        admin,
      ),
    );
    const r = await s.call('GET', '/policy/export/policies.txt', {}, admin);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename=policies.txt');
    expect(r.text).toContain('[full]\n');
    const before = await all();
    for (const name of Object.keys(before)) ok(await s.call('DELETE', `/policy/${name}`, {}, admin));
    expect(await all()).toEqual({});
    expect(ok(await upload(r.text))).toBe(Object.keys(before).length + 1); // + the grant
    expect(await all()).toEqual(before);
    // One bad policy in a file: nothing of the file is stored.
    const v = await version();
    expectServiceError(
      await upload(`${r.text}\n[broken]\nscope = "admin"\naction = "nosuchaction"\n`),
      905,
      /Invalid actions/,
    );
    expect(await all()).toEqual(before);
    expect(await version()).toBe(v);
  });

  it("imports privacyIDEA's export format", async () => {
    const file = [
      '[pi1]',
      'name = pi1',
      'user_case_insensitive = False',
      'active = True',
      'scope = authentication',
      "realm = ['realm1']",
      'adminrealm = []',
      'adminuser = []',
      "resolver = ['res1']",
      "user = ['alice', 'bob']",
      'client = []',
      'time = ',
      'priority = 2',
      "action = {'otppin': 'userstore', 'passOnNoToken': True}",
      'check_all_resolvers = False',
      "pinode = ['test-node']",
      'user_agents = []',
      "conditions = [('userinfo', 'email', 'matches', '.*@example\\.com', True, 'raise_error')]",
      'description = None',
      '',
    ].join('\n');
    expect(ok(await upload(file))).toBe(1);
    expect((await all()).pi1).toEqual({
      name: 'pi1',
      scope: 'authentication',
      action: { otppin: 'userstore', passOnNoToken: true },
      active: true,
      realm: ['realm1'],
      resolver: ['res1'],
      user: ['alice', 'bob'],
      adminrealm: [],
      adminuser: [],
      client: [],
      servicenode: ['test-node'],
      pinode: ['test-node'],
      user_agents: [],
      time: '',
      priority: 2,
      check_all_resolvers: false,
      user_case_insensitive: false,
      conditions: [['userinfo', 'email', 'matches', '.*@example\\.com', true, 'raise_error']],
      description: null,
    });
  });

  it('refuses an empty import file and a missing file', async () => {
    const before = await all();
    expectServiceError(await upload(''), 905, 'Error loading policy. File empty!');
    expectServiceError(await upload('\n# nothing\n'), 905, 'Error loading policy. File empty!');
    expectServiceError(
      await s.call('POST', '/policy/import/x.txt', {}, admin),
      905,
      "Missing parameter: 'file'",
    );
    expectServiceError(await upload('key = "no section"\n'), 905, /Error loading policy. Line 1/);
    expect(await all()).toEqual(before);
  });

  it('is for administrators only', async () => {
    const user = await userToken(s, 'alice', 'alicepw', 'realm1');
    const before = await all();
    for (const [method, path] of [
      ['GET', '/policy/'],
      ['GET', '/policy/pol1'],
      ['GET', '/policy/check'],
      ['GET', '/policy/defs'],
      ['POST', '/policy/pol9'],
      ['DELETE', '/policy/pol1'],
      ['POST', '/policy/enable/pol1'],
      ['POST', '/policy/disable/pol1'],
      ['GET', '/policy/export/x.txt'],
      ['POST', '/policy/import/x.txt'],
    ] as const) {
      const r = await s.call(method, path, { scope: 'admin', action: 'tokenlist' }, user);
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.json.result.error.code).toBe(4306);
    }
    expect(await all()).toEqual(before);
    expect((await s.call('GET', '/policy/')).status).toBe(401);
  });
});
