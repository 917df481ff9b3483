import { describe, expect, it } from 'vitest';
import { ConfigAdminError, ParameterError, PolicyError } from '../../src/errors.ts';
import {
  type ConditionTuple,
  compileClientList,
  compilePolicies,
  type MatchRequest,
  type PolicyRecord,
  parseTimeRanges,
  userAgentName,
} from '../../src/policy/matcher.ts';

// Local-time dates: 2026-03-02 is a Monday.
const MON_10 = new Date(2026, 2, 2, 10, 0, 0);

function pol(name: string, fields: Partial<PolicyRecord> = {}): PolicyRecord {
  return { name, scope: 'admin', action: 'tokenlist', active: true, ...fields };
}

function names(records: PolicyRecord[], req: Partial<MatchRequest>): string[] {
  return compilePolicies(records)
    .match({ scope: 'admin', time: MON_10, ...req })
    .map((p) => p.name);
}

describe('list attributes', () => {
  it('an empty list is a wildcard; an unset request attribute does not filter', () => {
    expect(names([pol('p')], { realm: 'r1', user: 'alice', resolver: 'x' })).toEqual(['p']);
    expect(names([pol('p', { realm: ['r1'] })], {})).toEqual(['p']);
  });

  it('exact entries match only equal values', () => {
    const p = [pol('p', { realm: ['r1', 'r2'] })];
    expect(names(p, { realm: 'r2' })).toEqual(['p']);
    expect(names(p, { realm: 'r3' })).toEqual([]);
    expect(names(p, { realm: '' })).toEqual([]);
  });

  it('* matches any value, also the empty one', () => {
    expect(names([pol('p', { user: '*' })], { user: 'bob' })).toEqual(['p']);
    expect(names([pol('p', { user: '*' })], { user: '' })).toEqual(['p']);
  });

  it('other entries are regexes anchored at both ends', () => {
    const p = [pol('p', { user: ['customer_.*'] })];
    expect(names(p, { user: 'customer_1' })).toEqual(['p']);
    expect(names(p, { user: 'xcustomer_1' })).toEqual([]);
    // `enroll*` is a regex, not a prefix
    const a = [pol('a', { action: 'enroll*' })];
    expect(names(a, { action: 'enrolll' })).toEqual(['a']);
    expect(names(a, { action: 'enrollHOTP' })).toEqual([]);
  });

  it('!x and -x exclude; a list of only negations matches nothing', () => {
    const p = [pol('p', { user: ['*', '!admin'] }), pol('q', { user: '-admin' })];
    expect(names(p, { user: 'bob' })).toEqual(['p']);
    expect(names(p, { user: 'admin' })).toEqual([]);
  });

  it('an exclusion wins over a regex that also matches', () => {
    expect(names([pol('p', { realm: ['r.*', '-r2'] })], { realm: 'r1' })).toEqual(['p']);
    expect(names([pol('p', { realm: ['r.*', '-r2'] })], { realm: 'r2' })).toEqual([]);
  });

  it('comma strings are lists too', () => {
    expect(names([pol('p', { realm: 'r1, r2' })], { realm: 'r2' })).toEqual(['p']);
  });

  it('user matching is case-sensitive unless user_case_insensitive', () => {
    expect(names([pol('p', { user: 'Alice' })], { user: 'alice' })).toEqual([]);
    expect(names([pol('p', { user: 'Alice', user_case_insensitive: true })], { user: 'alice' })).toEqual([
      'p',
    ]);
    expect(names([pol('p', { user: '*,!Alice', user_case_insensitive: true })], { user: 'ALICE' })).toEqual(
      [],
    );
  });

  it('additional realms: any of them may match', () => {
    const p = [pol('p', { realm: 'r2' })];
    expect(names(p, { realm: 'r1', additionalRealms: ['r2'] })).toEqual(['p']);
    expect(names(p, { realm: 'r1', additionalRealms: ['r3'] })).toEqual([]);
  });

  it('an invalid stored regex never matches', () => {
    expect(names([pol('p', { user: 'a(b' })], { user: 'a(b' })).toEqual(['p']); // exact still works
    expect(names([pol('p', { user: 'a(b' })], { user: 'ab' })).toEqual([]);
  });
});

describe('scope, name, active, action', () => {
  it('filters by scope and name and skips inactive policies', () => {
    const p = [pol('a'), pol('b', { scope: 'user' }), pol('c', { active: false })];
    expect(names(p, {})).toEqual(['a']);
    expect(names(p, { name: 'c', activeOnly: false })).toEqual(['c']);
    expect(names(p, { name: 'b' })).toEqual([]);
  });

  it('actions: found and not excluded; a policy without actions matches any action', () => {
    const p = [
      pol('all', { action: '*, -delete' }),
      pol('list', { action: 'tokenlist' }),
      pol('none', { action: '' }),
    ];
    expect(names(p, { action: 'tokenlist' })).toEqual(['all', 'list', 'none']);
    expect(names(p, { action: 'delete' })).toEqual(['none']);
    expect(names(p, { action: 'assign' })).toEqual(['all', 'none']);
  });
});

describe('admin realm and admin user', () => {
  const p = [pol('helpdesk', { adminrealm: 'helpdesk', adminuser: ['*', '!mallory'] }), pol('any')];

  it('apply in the admin scope', () => {
    expect(names(p, { adminrealm: 'helpdesk', adminuser: 'hans' })).toEqual(['helpdesk', 'any']);
    expect(names(p, { adminrealm: 'helpdesk', adminuser: 'mallory' })).toEqual(['any']);
    // local admins have admin realm "": only policies without adminrealm match
    expect(names(p, { adminrealm: '', adminuser: 'hans' })).toEqual(['any']);
  });

  it('are ignored in other scopes', () => {
    const u = [pol('u', { scope: 'user', adminrealm: 'helpdesk' })];
    expect(names(u, { scope: 'user', adminrealm: 'other' })).toEqual(['u']);
  });
});

describe('resolver and check_all_resolvers', () => {
  it('matches the request resolver', () => {
    const p = [pol('p', { resolver: 'ldap1' })];
    expect(names(p, { resolver: 'ldap1' })).toEqual(['p']);
    expect(names(p, { resolver: 'sql1' })).toEqual([]);
  });

  it('with check_all_resolvers any resolver of the user in the realm counts', () => {
    const plain = [pol('p', { resolver: 'ldap2' })];
    const all = [pol('p', { resolver: 'ldap2', check_all_resolvers: true })];
    const req = { resolver: 'ldap1', userResolvers: ['ldap1', 'ldap2'] };
    expect(names(plain, req)).toEqual([]);
    expect(names(all, req)).toEqual(['p']);
    expect(names(all, { resolver: 'ldap1', userResolvers: ['ldap1', 'sql'] })).toEqual([]);
  });
});

describe('service node and user agents', () => {
  it('servicenode (or pinode) must contain this node', () => {
    const p = [pol('a', { servicenode: ['node1'] }), pol('b', { pinode: 'node2' }), pol('c')];
    expect(names(p, { servicenode: 'node1' })).toEqual(['a', 'c']);
    expect(names(p, { servicenode: 'node2' })).toEqual(['b', 'c']);
  });

  it('user agents match by name, case-insensitively', () => {
    const p = [pol('a', { user_agents: ['privacyIDEA-CP'] }), pol('b')];
    expect(userAgentName('privacyidea-cp/3.1 Windows/10')).toBe('privacyidea-cp');
    expect(names(p, { userAgent: userAgentName('privacyidea-cp/3.1') })).toEqual(['a', 'b']);
    expect(names(p, { userAgent: 'curl' })).toEqual(['b']);
  });
});

describe('client IP', () => {
  const p = [pol('net', { client: ['10.0.0.0/8', '!10.1.0.0/16', '192.168.1.5'] })];

  it('IPv4 networks, single addresses and exclusions', () => {
    expect(names(p, { client: '10.2.3.4' })).toEqual(['net']);
    expect(names(p, { client: '10.1.3.4' })).toEqual([]);
    expect(names(p, { client: '192.168.1.5' })).toEqual(['net']);
    expect(names(p, { client: '192.168.1.6' })).toEqual([]);
    expect(names(p, { client: '::ffff:10.2.3.4' })).toEqual(['net']);
    expect(names(p, { client: '' })).toEqual([]);
    expect(names(p, { client: 'not-an-ip' })).toEqual([]);
  });

  it('IPv6 networks and exclusions', () => {
    const v6 = [pol('v6', { client: '2001:db8::/32, -2001:db8:dead::/48' })];
    expect(names(v6, { client: '2001:db8:1::1' })).toEqual(['v6']);
    expect(names(v6, { client: '2001:db8:dead::1' })).toEqual([]);
    expect(names(v6, { client: '2001:db9::1' })).toEqual([]);
    expect(names(v6, { client: '10.0.0.1' })).toEqual([]);
  });

  it('only exclusions match nothing', () => {
    expect(names([pol('p', { client: '!10.0.0.1' })], { client: '192.168.0.1' })).toEqual([]);
  });

  it('an empty client list matches any client', () => {
    expect(names([pol('p')], { client: '1.2.3.4' })).toEqual(['p']);
  });

  it('invalid definitions are refused with 302', () => {
    for (const bad of ['10.0.0.0/33', 'host.example', '*', '10.0.0.1/8/1', '::1/129']) {
      expect(() => compileClientList(bad), bad).toThrow(ConfigAdminError);
    }
    expect(() => compileClientList('10.0.0.0/8, ::1, !fe80::/10')).not.toThrow();
  });
});

describe('time ranges', () => {
  const p = [pol('office', { time: 'Mon-Fri: 09:00-17:30, Sat: 9-12' })];
  const at = (d: Date) => names(p, { time: d });

  it('inside and outside the weekday range (boundaries inclusive)', () => {
    expect(at(new Date(2026, 2, 2, 9, 0, 0))).toEqual(['office']); // Mon 09:00
    expect(at(new Date(2026, 2, 6, 17, 30, 0))).toEqual(['office']); // Fri 17:30
    expect(at(new Date(2026, 2, 6, 17, 30, 1))).toEqual([]);
    expect(at(new Date(2026, 2, 2, 8, 59, 59))).toEqual([]);
  });

  it('the second range, and days not listed', () => {
    expect(at(new Date(2026, 2, 7, 11, 0))).toEqual(['office']); // Sat 11:00
    expect(at(new Date(2026, 2, 7, 13, 0))).toEqual([]); // Sat 13:00
    expect(at(new Date(2026, 2, 8, 10, 0))).toEqual([]); // Sun
  });

  it('a day range may wrap over the week end', () => {
    const w = [pol('w', { time: 'Sat-Mon: 0-24' })];
    expect(names(w, { time: new Date(2026, 2, 8, 3, 0) })).toEqual(['w']);
    expect(names(w, { time: new Date(2026, 2, 3, 3, 0) })).toEqual([]);
  });

  it('bad syntax is a 905 parameter error', () => {
    for (const bad of ['Mon-Fri 09:00-17:00', 'Xyz: 9-17', 'Mon: 25-26', 'Mon: 9', 'Mon: 9:60-10']) {
      expect(() => parseTimeRanges(bad), bad).toThrow(ParameterError);
    }
    expect(parseTimeRanges('')).toBeNull();
  });
});

describe('conditions', () => {
  const cond = (c: PolicyRecord['conditions'], req: Partial<MatchRequest>) =>
    names([pol('c', { conditions: c })], req);
  const ui = (v: Record<string, unknown>) => ({ conditionData: { userinfo: v } });

  it('equals / !equals', () => {
    const c: PolicyRecord['conditions'] = [['userinfo', 'group', 'equals', 'staff', true]];
    expect(cond(c, ui({ group: 'staff' }))).toEqual(['c']);
    expect(cond(c, ui({ group: 'guest' }))).toEqual([]);
    expect(cond([['userinfo', 'group', '!equals', 'staff', true]], ui({ group: 'guest' }))).toEqual(['c']);
    expect(
      cond([['token', 'active', 'equals', 'True', true]], { conditionData: { token: { active: true } } }),
    ).toEqual(['c']);
  });

  it('contains / !contains on list values', () => {
    expect(cond([['userinfo', 'groups', 'contains', 'vpn', true]], ui({ groups: ['a', 'vpn'] }))).toEqual([
      'c',
    ]);
    expect(cond([['userinfo', 'groups', 'contains', 'vpn', true]], ui({ groups: ['a'] }))).toEqual([]);
    expect(cond([['userinfo', 'groups', '!contains', 'vpn', true]], ui({ groups: ['a'] }))).toEqual(['c']);
    expect(() => cond([['userinfo', 'groups', 'contains', 'vpn', true]], ui({ groups: 'vpn' }))).toThrow(
      PolicyError,
    );
  });

  it('matches / !matches are anchored', () => {
    expect(
      cond([['userinfo', 'email', 'matches', '.*@example\\.com', true]], ui({ email: 'a@example.com' })),
    ).toEqual(['c']);
    expect(cond([['userinfo', 'email', 'matches', 'example', true]], ui({ email: 'a@example.com' }))).toEqual(
      [],
    );
    expect(
      cond([['userinfo', 'email', '!matches', '.*@evil', true]], ui({ email: 'a@example.com' })),
    ).toEqual(['c']);
  });

  it('in / !in', () => {
    expect(
      cond([['Request Data', 'type', 'in', 'hotp, totp', true]], {
        conditionData: { 'Request Data': { type: 'totp' } },
      }),
    ).toEqual(['c']);
    expect(
      cond([['Request Data', 'type', 'in', 'hotp,totp', true]], {
        conditionData: { 'Request Data': { type: 'sms' } },
      }),
    ).toEqual([]);
    expect(
      cond([['Request Data', 'type', '!in', 'hotp,totp', true]], {
        conditionData: { 'Request Data': { type: 'sms' } },
      }),
    ).toEqual(['c']);
  });

  it('< and > compare numbers', () => {
    const ti = (v: unknown) => ({ conditionData: { tokeninfo: { count: v } } });
    expect(cond([['tokeninfo', 'count', '<', '10', true]], ti('9'))).toEqual(['c']);
    expect(cond([['tokeninfo', 'count', '<', '10', true]], ti(10))).toEqual([]);
    expect(cond([['tokeninfo', 'count', '>', '10', true]], ti('11'))).toEqual(['c']);
    expect(() => cond([['tokeninfo', 'count', '>', '10', true]], ti('many'))).toThrow(PolicyError);
    expect(() =>
      compilePolicies([pol('x', { conditions: [['tokeninfo', 'count', '>', 'ten', true]] })]),
    ).toThrow(ParameterError);
  });

  it('string_contains / !string_contains', () => {
    const h = (v: string) => ({ conditionData: { 'HTTP Request header': { 'User-Agent': v } } });
    expect(
      cond([['HTTP Request header', 'User-Agent', 'string_contains', 'Mozilla', true]], h('Mozilla/5')),
    ).toEqual(['c']);
    expect(
      cond([['HTTP Request header', 'User-Agent', 'string_contains', 'Mozilla', true]], h('curl')),
    ).toEqual([]);
    expect(
      cond([['HTTP Request header', 'User-Agent', '!string_contains', 'Mozilla', true]], h('curl')),
    ).toEqual(['c']);
  });

  it('date comparators (pinned time)', () => {
    const d = (v: string) => ({
      conditionData: { tokeninfo: { last_auth: v } },
      time: new Date('2026-03-02T12:00:00Z'),
    });
    expect(
      cond(
        [['tokeninfo', 'last_auth', 'date_before', '2026-01-01T00:00:00+00:00', true]],
        d('2025-12-31T00:00:00+0000'),
      ),
    ).toEqual(['c']);
    expect(
      cond(
        [['tokeninfo', 'last_auth', 'date_before', '2026-01-01T00:00:00+00:00', true]],
        d('2026-01-02T00:00:00Z'),
      ),
    ).toEqual([]);
    expect(
      cond([['tokeninfo', 'last_auth', 'date_after', '2026-01-01', true]], d('2026-01-02T00:00:00Z')),
    ).toEqual(['c']);
    expect(
      cond([['tokeninfo', 'last_auth', 'date_within_last', '2d', true]], d('2026-03-01T12:00:00Z')),
    ).toEqual(['c']);
    expect(
      cond([['tokeninfo', 'last_auth', 'date_within_last', '2d', true]], d('2026-02-27T12:00:00Z')),
    ).toEqual([]);
    expect(
      cond([['tokeninfo', 'last_auth', '!date_within_last', '2d', true]], d('2026-02-27T12:00:00Z')),
    ).toEqual(['c']);
    expect(() =>
      cond([['tokeninfo', 'last_auth', 'date_after', '2026-01-01', true]], d('yesterday')),
    ).toThrow(PolicyError);
  });

  it('all active conditions must hold; inactive ones are ignored', () => {
    const c: PolicyRecord['conditions'] = [
      ['userinfo', 'group', 'equals', 'staff', true],
      ['userinfo', 'dept', 'equals', 'it', true],
      ['userinfo', 'never', 'equals', 'x', false],
    ];
    expect(cond(c, ui({ group: 'staff', dept: 'it' }))).toEqual(['c']);
    expect(cond(c, ui({ group: 'staff', dept: 'hr' }))).toEqual([]);
  });

  it('missing data: raise_error (default), condition_is_true, condition_is_false', () => {
    expect(() => cond([['userinfo', 'group', 'equals', 'staff', true]], {})).toThrow(PolicyError);
    expect(() => cond([['userinfo', 'group', 'equals', 'staff', true]], ui({}))).toThrow(
      /condition on userinfo 'group'/,
    );
    expect(cond([['userinfo', 'group', 'equals', 'staff', true, 'condition_is_true']], ui({}))).toEqual([
      'c',
    ]);
    expect(cond([['userinfo', 'group', 'equals', 'staff', true, 'condition_is_false']], ui({}))).toEqual([]);
  });

  it('conditionSections restricts which sections are evaluated (web UI login)', () => {
    const c: PolicyRecord['conditions'] = [['HTTP Request header', 'X', 'equals', 'y', true]];
    expect(cond(c, { conditionSections: ['userinfo'] })).toEqual(['c']);
  });

  it('bad comparators and regexes are refused when compiling', () => {
    for (const bad of [
      ['userinfo', 'a', 'like', 'x', true],
      ['userinfo', 'a', '!<', '1', true],
      ['userinfo', 'a', 'matches', '(', true],
      ['userinfo', 'a', 'date_within_last', 'soon', true],
      ['userinfo', 'a', 'equals', 'x', true, 'ignore'],
    ] as ConditionTuple[]) {
      expect(() => compilePolicies([pol('x', { conditions: [bad] })])).toThrow(ParameterError);
    }
  });

  it('the refusal names the comparator as written, the value and the policy', () => {
    const where = "in a condition of policy 'x'";
    const cases: [ConditionTuple, string][] = [
      [['userinfo', 'a', 'like', 'x', true], `Unknown comparator 'like' ${where}`],
      [['userinfo', 'a', '!<', '1', true], `Unknown comparator '!<' ${where}`],
      [['userinfo', 'a', '!constructor', '1', true], `Unknown comparator '!constructor' ${where}`],
      [['userinfo', 'a', 'toString', '1', true], `Unknown comparator 'toString' ${where}`],
      [['userinfo', 'a', '<', 'ten', true], `Comparator '<' needs a number ${where}, not 'ten'`],
      [['userinfo', 'a', '>', ' ', true], `Comparator '>' needs a number ${where}, not ' '`],
      [['userinfo', 'a', 'date_before', 'someday', true], `Comparator 'date_before' needs a date ${where}`],
      [['userinfo', 'a', 'date_after', '', true], `Comparator 'date_after' needs a date ${where}`],
      [
        ['userinfo', 'a', '!date_within_last', 'soon', true],
        `Comparator '!date_within_last' needs a duration like 5d ${where}`,
      ],
      [['userinfo', 'a', '!matches', '[', true], `Invalid regular expression '[' ${where}`],
    ];
    for (const [condition, message] of cases)
      expect(() => compilePolicies([pol('x', { conditions: [condition] })]), message).toThrow(message);
  });
});

describe('priority and action values', () => {
  const set = compilePolicies([
    pol('low', { scope: 'authentication', action: 'otppin=none', priority: 5 }),
    pol('high1', { scope: 'authentication', action: 'otppin=userstore', priority: 2 }),
    pol('high2', { scope: 'authentication', action: 'otppin=userstore', priority: 2, realm: 'r1' }),
    pol('other', { scope: 'authentication', action: 'passOnNoToken', priority: 1 }),
  ]);
  const req = { scope: 'authentication', action: 'otppin', realm: 'r1', time: MON_10 };

  it('matches are sorted by priority, lower first', () => {
    expect(set.match(req).map((p) => p.name)).toEqual(['high1', 'high2', 'low']);
  });

  it('the best priority wins; equal values there are no conflict', () => {
    expect(set.actionValue(req)).toBe('userstore');
    expect(set.actionValues(req, { unique: true })).toEqual(new Map([['userstore', ['high1', 'high2']]]));
    // Without unique, every priority contributes (privacyIDEA's action_values).
    expect(set.actionValues(req).get('userstore')).toEqual(['high1', 'high2']);
    expect(set.actionValues(req).size).toBeGreaterThan(1);
    expect(set.actionValue({ ...req, action: 'challenge_text' })).toBeUndefined();
  });

  it('conflicting values at the best priority → PolicyError 303', () => {
    const c = compilePolicies([
      pol('b', { scope: 'authentication', action: 'otppin=none', priority: 1 }),
      pol('a', { scope: 'authentication', action: 'otppin=tokenpin', priority: 1 }),
      pol('z', { scope: 'authentication', action: 'otppin=userstore', priority: 9 }),
    ]);
    try {
      c.actionValue(req);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(PolicyError);
      expect((e as PolicyError).code).toBe(303);
      expect((e as PolicyError).message).toBe("There are policies with conflicting actions: ['a', 'b']");
    }
    // without unique, every value of every priority is returned
    expect([...c.actionValues(req).keys()].sort()).toEqual(['none', 'tokenpin', 'userstore']);
  });

  it('values split at whitespace unless quoted or allowed', () => {
    const c = compilePolicies([
      pol('t', { scope: 'authorization', action: 'tokentype=hotp totp' }),
      pol('s', { scope: 'authentication', action: "challenge_text='Enter your OTP'" }),
    ]);
    const r = { time: MON_10 };
    expect([...c.actionValues({ ...r, scope: 'authorization', action: 'tokentype' }).keys()]).toEqual([
      'hotp',
      'totp',
    ]);
    expect(c.actionValue({ ...r, scope: 'authentication', action: 'challenge_text' })).toBe('Enter your OTP');
    expect(
      c.actionValue({ ...r, scope: 'authorization', action: 'tokentype' }, { allowWhiteSpace: true }),
    ).toBe('hotp totp');
  });

  it('isSet tells whether a boolean action is given by a matching policy', () => {
    expect(set.isSet({ scope: 'authentication', action: 'passOnNoToken', time: MON_10 })).toBe(true);
    expect(set.isSet({ scope: 'authentication', action: 'passOnNoUser', time: MON_10 })).toBe(false);
  });

  it('priority must be at least 1', () => {
    expect(() => compilePolicies([pol('p', { priority: 0 })])).toThrow(/Priority must be at least 1/);
  });
});

describe('deny by default in the admin and user scopes', () => {
  const req = { scope: 'admin', action: 'policywrite', adminuser: 'hans', adminrealm: '', time: MON_10 };

  it('no policy at all: everything allowed', () => {
    expect(compilePolicies([]).allowed(req)).toBe(true);
  });

  it('only inactive admin policies or policies of another scope: still allowed', () => {
    expect(compilePolicies([pol('p', { active: false }), pol('u', { scope: 'user' })]).allowed(req)).toBe(
      true,
    );
  });

  it('once an active admin policy exists, an unmatched action is denied with the reference message', () => {
    const set = compilePolicies([pol('helpdesk', { action: 'tokenlist, policyread' })]);
    expect(set.allowed(req)).toBe(false);
    expect(set.allowed({ ...req, action: 'policyread' })).toBe(true);
    expect(() => set.checkAllowed(req)).toThrow(
      'Admin actions are defined, but the action policywrite is not allowed!',
    );
    expect(() => set.checkAllowed({ ...req, action: 'policyread' })).not.toThrow();
  });

  it('a policy for another administrator locks this one out', () => {
    const set = compilePolicies([pol('other', { action: '*', adminuser: 'alice' })]);
    expect(set.allowed(req)).toBe(false);
    expect(set.allowed({ ...req, adminuser: 'alice' })).toBe(true);
  });

  it('user scope likewise', () => {
    const u = { scope: 'user', action: 'delete', user: 'bob', realm: 'r1', time: MON_10 };
    expect(compilePolicies([]).allowed(u)).toBe(true);
    const set = compilePolicies([pol('u', { scope: 'user', action: 'enable, disable', realm: 'r1' })]);
    expect(set.allowed(u)).toBe(false);
    expect(set.allowed({ ...u, action: 'disable' })).toBe(true);
    expect(() => set.checkAllowed(u)).toThrow(
      'User actions are defined, but the action delete is not allowed!',
    );
  });

  it('other scopes are opt-in: nothing matches without a policy', () => {
    expect(
      compilePolicies([]).allowed({ scope: 'authentication', action: 'passOnNoToken', time: MON_10 }),
    ).toBe(false);
  });
});
