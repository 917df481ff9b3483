// Machine tokens and authentication items over HTTP (reference 6.4, spec "Machine token" and the
// "Machine endpoints"): POST/DELETE/GET /machine/token, POST /machine/tokenoption and
// GET /machine/authitem for ssh, on a hosts machine resolver; the errors, each changing nothing;
// the rights; an audit row per request; a deleted token's attachments go with it; a service ID
// or machine resolver in use is not deleted; concurrent attaches of one token to one machine leave
// one attachment, the others refused with the clear error.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { ed25519PublicKey } from '../helpers/ssh-keys.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const HOSTS = '10.0.0.1 gw gw.lab\n10.0.0.2 web1\n10.0.0.3 dup\n10.0.0.4 dup\n';
const ALICE_KEY = ed25519PublicKey('alice@laptop');
const BOB_KEY = ed25519PublicKey('bob@laptop');

interface Mt {
  id: number;
  serial: string;
  type: string;
  application: string;
  machine_id: string | null;
  resolver: string | null;
  options: Record<string, string>;
}

describe.each(testDialects())('machine tokens on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)] },
      reset: ['tokens', 'policies', 'audit'],
    },
    (t) => ({ s, op, admin } = t),
  );
  beforeAll(async () => {
    const hosts = join(s.dataDir, 'hosts');
    writeFileSync(hosts, HOSTS);
    ok(await s.call('POST', '/machineresolver/lab', { type: 'hosts', filename: hosts }, admin));
    ok(await s.call('POST', '/serviceid/mail', { description: 'IMAP' }, admin));
  });
  afterEach(async () => {
    const db = s.rt.store.db;
    for (const table of ['machinetoken_option', 'machinetoken'] as const)
      await db.deleteFrom(table).execute();
  });

  const call = (method: string, path: string, params: Record<string, string> = {}) =>
    s.call(method, path, params, admin);
  const enroll = async (serial: string, sshkey: string, user?: string) =>
    ok(
      await call('POST', '/token/init', {
        type: 'sshkey',
        serial,
        sshkey,
        ...(user ? { user, realm: 'realm1' } : {}),
      }),
    );
  const attach = async (params: Record<string, string>) =>
    ok(await call('POST', '/machine/token', params)) as number;
  const list = async (params: Record<string, string> = {}) =>
    ok(await call('GET', '/machine/token', params)) as Mt[];
  const rows = () => s.rt.store.db.selectFrom('machinetoken').selectAll().orderBy('id').execute();
  const optionRows = () =>
    s.rt.store.db
      .selectFrom('machinetoken_option')
      .select(['machinetoken_id', 'key', 'value'])
      .orderBy('key')
      .execute();

  it('attaches by hostname and by machine id, lists with the token type and detaches by both paths', async () => {
    await enroll('SSH1', ALICE_KEY, 'alice');
    const a = await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw', user: 'root' });
    const b = await attach({ serial: 'SSH1', application: 'ssh', machineid: '10.0.0.2', resolver: 'lab' });
    expect(b).toBeGreaterThan(a);
    expect(await list()).toEqual([
      {
        id: a,
        serial: 'SSH1',
        type: 'sshkey',
        application: 'ssh',
        machine_id: '10.0.0.1',
        resolver: 'lab',
        options: { user: 'root' },
      },
      {
        id: b,
        serial: 'SSH1',
        type: 'sshkey',
        application: 'ssh',
        machine_id: '10.0.0.2',
        resolver: 'lab',
        options: {},
      },
    ]);
    expect(ok(await call('DELETE', '/machine/token/SSH1/10.0.0.1/lab/ssh'))).toBe(1);
    expect(ok(await call('DELETE', `/machine/token/SSH1/ssh/${b}`))).toBe(1);
    expect(await rows()).toEqual([]);
    expect(await optionRows()).toEqual([]);
    const audit = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'serial', 'info'])
      .where('action', 'like', '%/machine/token%')
      .orderBy('id')
      .execute();
    expect(audit.map((r) => [r.action, r.success, r.serial])).toEqual([
      ['POST /machine/token', 1, 'SSH1'],
      ['POST /machine/token', 1, 'SSH1'],
      ['GET /machine/token', 1, ''],
      ['DELETE /machine/token/<serial>/<machineid>/<resolver>/<application>', 1, 'SSH1'],
      ['DELETE /machine/token/<serial>/<application>/<mtid>', 1, 'SSH1'],
    ]);
  });

  it('attaches to no machine for a service ID; several such attachments are told apart by mtid', async () => {
    await enroll('SSH1', ALICE_KEY, 'alice');
    const a = await attach({ serial: 'SSH1', application: 'ssh', service_id: 'mail', user: 'alice' });
    const b = await attach({ serial: 'SSH1', application: 'ssh', service_id: 'MAIL', user: 'root' });
    expect((await list()).map((r) => [r.id, r.machine_id, r.resolver, r.options])).toEqual([
      [a, null, null, { service_id: 'mail', user: 'alice' }],
      [b, null, null, { service_id: 'MAIL', user: 'root' }],
    ]);
    expectServiceError(
      await call('DELETE', '/serviceid/mail'),
      302,
      'The service ID mail is still used by machine token(s) SSH1 (ssh).',
    );
    expect(ok(await call('DELETE', `/machine/token/SSH1/ssh/${a}`))).toBe(1);
    expect((await list()).map((r) => r.id)).toEqual([b]);
  });

  it('refuses bad attachments with a clear error and writes nothing', async () => {
    await enroll('SSH1', ALICE_KEY);
    ok(await call('POST', '/token/init', { type: 'spass', serial: 'SPASS1', pin: 'x' }));
    await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw' });
    const before = await rows();
    const cases: [Record<string, string>, number, string | RegExp][] = [
      [{ application: 'ssh', hostname: 'gw' }, 905, "Missing parameter: 'serial'"],
      [{ serial: 'SSH1', hostname: 'gw' }, 905, "Missing parameter: 'application'"],
      [
        { serial: 'NOPE', application: 'ssh', hostname: 'gw' },
        601,
        'The requested token could not be found.',
      ],
      [
        { serial: 'SSH1', application: 'vpn', hostname: 'gw' },
        905,
        "Unknown application 'vpn': use ssh, offline, luks",
      ],
      [
        { serial: 'SPASS1', application: 'ssh', hostname: 'gw' },
        905,
        'The application ssh takes tokens of type sshkey; SPASS1 is a spass token.',
      ],
      [
        { serial: 'SSH1', application: 'ssh', hostname: 'nohost' },
        601,
        'There is no machine with the hostname nohost.',
      ],
      [
        { serial: 'SSH1', application: 'ssh', hostname: 'dup' },
        905,
        /^ERR905: The hostname dup names more than one machine: 10\.0\.0\.3 \(lab\), 10\.0\.0\.4 \(lab\)/,
      ],
      [{ serial: 'SSH1', application: 'ssh', machineid: '10.0.0.1' }, 905, "Missing parameter: 'resolver'"],
      [
        { serial: 'SSH1', application: 'ssh', resolver: 'lab' },
        905,
        'A machine resolver needs a machineid (or give a hostname).',
      ],
      [
        { serial: 'SSH1', application: 'ssh', machineid: '10.9.9.9', resolver: 'lab' },
        601,
        'There is no machine with the id 10.9.9.9 in the machine resolver lab.',
      ],
      [
        { serial: 'SSH1', application: 'ssh', machineid: '10.0.0.1', resolver: 'nolab' },
        601,
        'The machine resolver nolab does not exist.',
      ],
      [
        { serial: 'SSH1', application: 'ssh', hostname: 'gw' },
        905,
        'The token SSH1 is already attached to machine 10.0.0.1 (lab) for ssh.',
      ],
      [
        { serial: 'SSH1', application: 'ssh', service_id: 'nosuch' },
        601,
        'The service ID nosuch does not exist.',
      ],
      [
        { serial: 'SSH1', application: 'ssh', user: 'x'.repeat(2001) },
        905,
        "The parameter 'user' is longer than 2000 characters",
      ],
      [
        { serial: 'SSH1', application: 'ssh', ['k'.repeat(256)]: 'v' },
        905,
        "The parameter 'option name' is longer than 255 characters",
      ],
    ];
    for (const [params, code, message] of cases)
      expectServiceError(await call('POST', '/machine/token', params), code, message);
    expect(await rows()).toEqual(before);
    expect(await optionRows()).toEqual([]);
    const failed = await s.rt.store.db
      .selectFrom('audit')
      .select('success')
      .where('action', '=', 'POST /machine/token')
      .where('success', '=', 0)
      .execute();
    expect(failed).toHaveLength(cases.length);
  });

  it('attaches a token to a machine once when several requests attach it at the same moment', async () => {
    await enroll('SSH1', ALICE_KEY);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', '/machine/token', { serial: 'SSH1', application: 'ssh', hostname: 'gw', user: `u${i}` }),
      ),
    );
    const winners = answers.flatMap((r, i) => (r.status === 200 && r.json.result.status === true ? [i] : []));
    expect(winners, answers.map((r) => r.text).join('\n')).toHaveLength(1);
    for (const r of answers.filter((_, i) => i !== winners[0]))
      expectServiceError(r, 905, 'The token SSH1 is already attached to machine 10.0.0.1 (lab) for ssh.');
    const mtid = Number(answers[winners[0]!]!.json.result.value);
    expect((await rows()).map((r) => Number(r.id))).toEqual([mtid]);
    expect((await optionRows()).map((o) => [Number(o.machinetoken_id), o.key, o.value])).toEqual([
      [mtid, 'user', `u${winners[0]}`],
    ]);
    // Attachments to no machine are not duplicates: each concurrent one is its own, with its own options.
    const many = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', '/machine/token', {
          serial: 'SSH1',
          application: 'ssh',
          service_id: 'mail',
          user: `m${i}`,
        }),
      ),
    );
    const mtids = many.map((r) => Number(ok(r)));
    expect(new Set(mtids).size).toBe(8);
    const listed = await list({ serial: 'SSH1', service_id: 'mail' });
    expect(listed).toHaveLength(8);
    for (const [i, id] of mtids.entries())
      expect(listed.find((r) => r.id === id)?.options).toEqual({ service_id: 'mail', user: `m${i}` });
  });

  it('refuses detaching what is not attached', async () => {
    await enroll('SSH1', ALICE_KEY);
    await enroll('SSH2', BOB_KEY);
    const a = await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw' });
    const none = 'The token is not attached to that machine for that application.';
    expectServiceError(await call('DELETE', '/machine/token/SSH1/10.0.0.2/lab/ssh'), 601, none);
    expectServiceError(await call('DELETE', '/machine/token/SSH2/10.0.0.1/lab/ssh'), 601, none);
    expectServiceError(
      await call('DELETE', '/machine/token/SSH1/10.0.0.1/nolab/ssh'),
      601,
      'The machine resolver nolab does not exist.',
    );
    expectServiceError(
      await call('DELETE', '/machine/token/SSH1/10.0.0.1/lab/vpn'),
      905,
      "Unknown application 'vpn': use ssh, offline, luks",
    );
    expectServiceError(
      await call('DELETE', '/machine/token/NOPE/10.0.0.1/lab/ssh'),
      601,
      'The requested token could not be found.',
    );
    expectServiceError(
      await call('DELETE', `/machine/token/SSH2/ssh/${a}`),
      601,
      `There is no machine token ${a} of SSH2.`,
    );
    expectServiceError(
      await call('DELETE', '/machine/token/SSH1/ssh/x1'),
      905,
      "mtid must be a number, not 'x1'",
    );
    expect((await rows()).map((r) => Number(r.id))).toEqual([a]);
  });

  it('filters and sorts the list: serial with *, hostname, machine, application, options, sortby', async () => {
    await enroll('SSH1', ALICE_KEY);
    await enroll('SSH2', BOB_KEY);
    await enroll('OTHER3', ed25519PublicKey());
    const a = await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw', user: 'root' });
    const b = await attach({ serial: 'SSH2', application: 'ssh', hostname: 'web1', user: 'Admin' });
    const c = await attach({ serial: 'OTHER3', application: 'ssh', service_id: 'mail' });
    const ids = async (params: Record<string, string>) => (await list(params)).map((r) => r.id);
    expect(await ids({})).toEqual([c, a, b]);
    expect(await ids({ serial: 'SSH*' })).toEqual([a, b]);
    expect(await ids({ serial: 'SSH2' })).toEqual([b]);
    expect(await ids({ serial: 'ssh*' })).toEqual([]);
    expect(await ids({ hostname: 'gw.lab' })).toEqual([a]);
    expect(await ids({ hostname: 'nohost' })).toEqual([]);
    expect(await ids({ machineid: '10.0.0.2', resolver: 'lab' })).toEqual([b]);
    expect(await ids({ resolver: 'lab' })).toEqual([a, b]);
    expect(await ids({ resolver: 'nolab' })).toEqual([]);
    expect(await ids({ application: 'ssh' })).toEqual([c, a, b]);
    expect(await ids({ application: 'offline' })).toEqual([]);
    expect(await ids({ user: 'ADM*' })).toEqual([b]);
    expect(await ids({ user: '*o*' })).toEqual([a]);
    expect(await ids({ service_id: 'mail' })).toEqual([c]);
    expect(await ids({ sortby: 'user' })).toEqual([b, a, c]);
    expect(await ids({ sortby: 'serial', sortdir: 'desc' })).toEqual([b, a, c]);
    expect(await ids({ sortby: 'id', sortdir: 'desc' })).toEqual([c, b, a]);
    expectServiceError(
      await call('GET', '/machine/token', { sortdir: 'up' }),
      905,
      "sortdir must be 'asc' or 'desc'",
    );
    expectServiceError(
      await call('GET', '/machine/token', { serial: 'x'.repeat(1025) }),
      905,
      "The parameter 'serial' is longer than 1024 characters",
    );
  });

  it('sets and deletes options by mtid or by the machine, serial and application', async () => {
    await enroll('SSH1', ALICE_KEY);
    const a = await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw', user: 'root' });
    const option = (params: Record<string, string>) => call('POST', '/machine/tokenoption', params);
    expect(ok(await option({ mtid: String(a), service_id: 'mail', user: 'admin' }))).toEqual({
      added: 2,
      deleted: 0,
    });
    expect((await list())[0]?.options).toEqual({ service_id: 'mail', user: 'admin' });
    expect(ok(await option({ serial: 'SSH1', application: 'ssh', hostname: 'gw', user: '' }))).toEqual({
      added: 0,
      deleted: 1,
    });
    expect(
      ok(
        await option({
          serial: 'SSH1',
          application: 'ssh',
          machineid: '10.0.0.1',
          resolver: 'lab',
          service_id: '',
        }),
      ),
    ).toEqual({
      added: 0,
      deleted: 1,
    });
    expect(await optionRows()).toEqual([]);
    expectServiceError(
      await option({ mtid: String(a) }),
      905,
      'No option given: name the options to set as parameters.',
    );
    expectServiceError(
      await option({ mtid: String(a + 100), user: 'x' }),
      601,
      `There is no machine token ${a + 100}.`,
    );
    expectServiceError(
      await option({ serial: 'SSH1', application: 'ssh', hostname: 'web1', user: 'x' }),
      601,
      'The token is not attached to that machine for that application.',
    );
    expectServiceError(
      await option({ mtid: String(a), service_id: 'nosuch' }),
      601,
      'The service ID nosuch does not exist.',
    );
    expectServiceError(await option({ user: 'x' }), 905, "Missing parameter: 'serial'");
    expect(await optionRows()).toEqual([]);
  });

  it('gives the ssh authentication items of a host or a service ID, filtered by user', async () => {
    await enroll('SSH1', ALICE_KEY, 'alice');
    await enroll('SSH2', BOB_KEY);
    await enroll('SSH3', ed25519PublicKey('off'), 'bob');
    await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw', user: 'root' });
    await attach({ serial: 'SSH2', application: 'ssh', hostname: 'gw', user: 'admin' });
    await attach({ serial: 'SSH3', application: 'ssh', hostname: 'gw', user: 'root' });
    await attach({ serial: 'SSH2', application: 'ssh', service_id: 'mail', user: 'admin' });
    ok(await call('POST', '/token/disable/SSH3'));
    const items = async (path: string, params: Record<string, string>) => ok(await call('GET', path, params));
    const alice = { sshkey: ALICE_KEY, username: 'alice', user: 'root', serial: 'SSH1' };
    const bob = (extra: Record<string, string> = {}) => ({
      sshkey: BOB_KEY,
      user: 'admin',
      serial: 'SSH2',
      ...extra,
    });
    expect(await items('/machine/authitem/ssh', { hostname: 'gw' })).toEqual({ ssh: [alice, bob()] });
    expect(await items('/machine/authitem/ssh', { hostname: 'gw.lab', user: 'root' })).toEqual({
      ssh: [alice],
    });
    expect(await items('/machine/authitem', { hostname: 'gw', user: 'admin' })).toEqual({
      ssh: [bob()],
      offline: [],
      luks: [],
    });
    expect(await items('/machine/authitem/ssh', { hostname: 'gw', user: 'nobody' })).toEqual({ ssh: [] });
    expect(await items('/machine/authitem/ssh', { hostname: 'web1' })).toEqual({ ssh: [] });
    expect(await items('/machine/authitem/ssh', { hostname: 'nohost' })).toEqual({ ssh: [] });
    expect(await items('/machine/authitem/ssh', { service_id: 'MAIL', user: 'admin' })).toEqual({
      ssh: [bob({ service_id: 'mail' })],
    });
    expectServiceError(await call('GET', '/machine/authitem/ssh', {}), 905, "Missing parameter: 'hostname'");
    expectServiceError(
      await call('GET', '/machine/authitem/vpn', { hostname: 'gw' }),
      905,
      "Unknown application 'vpn': use ssh, offline, luks",
    );
    const audit = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success'])
      .where('action', 'like', 'GET /machine/authitem%')
      .execute();
    expect(audit).toHaveLength(9);
  });

  it('asks only the machine resolvers with attachments: an unreachable one without does not fail a lookup', async () => {
    await enroll('SSH1', ALICE_KEY);
    await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw', user: 'root' });
    const down = {
      type: 'ldap',
      LDAPURI: 'ldap://127.0.0.1:1',
      LDAPBASE: 'dc=example',
      SEARCHFILTER: '(objectClass=ipHost)',
      HOSTNAMEATTRIBUTE: 'cn',
      IPATTRIBUTE: 'ipHostNumber',
      TIMEOUT: '1',
    };
    ok(await call('POST', '/machineresolver/down', down));
    try {
      expectServiceError(
        await call('GET', '/machine/'),
        907,
        /The machine resolver down cannot list its machines/,
      );
      expect(ok(await call('GET', '/machine/authitem/ssh', { hostname: 'gw' }))).toEqual({
        ssh: [{ sshkey: ALICE_KEY, user: 'root', serial: 'SSH1' }],
      });
      expect(ok(await call('GET', '/machine/authitem/luks', { hostname: 'gw' }))).toEqual({ luks: [] });
    } finally {
      ok(await call('DELETE', '/machineresolver/down'));
    }
  });

  it('deleting a token removes its attachments; a machine resolver in use is not deleted', async () => {
    await enroll('SSH1', ALICE_KEY);
    await enroll('SSH2', BOB_KEY);
    await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw', user: 'root' });
    const b = await attach({ serial: 'SSH2', application: 'ssh', hostname: 'web1', user: 'root' });
    expectServiceError(
      await call('DELETE', '/machineresolver/lab'),
      302,
      'The machine resolver lab is still used by machine token(s) SSH1 on 10.0.0.1 (ssh), SSH2 on 10.0.0.2 (ssh).',
    );
    ok(await call('DELETE', '/token/SSH1'));
    expect((await rows()).map((r) => Number(r.id))).toEqual([b]);
    expect((await optionRows()).map((r) => Number(r.machinetoken_id))).toEqual([b]);
    expect((await list()).map((r) => r.serial)).toEqual(['SSH2']);
  });

  it('checks the rights: manage_machine_tokens, machinelist, fetch_authentication_items', async () => {
    await enroll('SSH1', ALICE_KEY);
    const mtid = await attach({ serial: 'SSH1', application: 'ssh', hostname: 'gw' });
    for (const [method, path] of [
      ['POST', '/machine/token'],
      ['GET', '/machine/token'],
      ['DELETE', `/machine/token/SSH1/ssh/${mtid}`],
      ['POST', '/machine/tokenoption'],
      ['GET', '/machine/authitem/ssh'],
    ] as const) {
      expect((await s.call(method, path)).status).toBe(401);
    }
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    const denied = (right: string) => `Admin actions are defined, but the action ${right} is not allowed!`;
    const manage = denied('manage_machine_tokens');
    expectServiceError(
      await call('POST', '/machine/token', { serial: 'SSH1', application: 'ssh', hostname: 'web1' }),
      303,
      manage,
    );
    expectServiceError(await call('DELETE', `/machine/token/SSH1/ssh/${mtid}`), 303, manage);
    expectServiceError(
      await call('POST', '/machine/tokenoption', { mtid: String(mtid), user: 'x' }),
      303,
      manage,
    );
    expectServiceError(await call('GET', '/machine/token'), 303, denied('machinelist'));
    expectServiceError(
      await call('GET', '/machine/authitem/ssh', { hostname: 'gw' }),
      303,
      denied('fetch_authentication_items'),
    );
    expect((await rows()).map((r) => Number(r.id))).toEqual([mtid]);
    expect(await optionRows()).toEqual([]);
    await setPolicy(op, 'adm', {
      scope: 'admin',
      action: 'manage_machine_tokens, machinelist, fetch_authentication_items',
    });
    expect(ok(await call('POST', '/machine/tokenoption', { mtid: String(mtid), user: 'x' }))).toEqual({
      added: 1,
      deleted: 0,
    });
    expect(ok(await call('GET', '/machine/authitem/ssh', { hostname: 'gw' }))).toEqual({
      ssh: [{ sshkey: ALICE_KEY, user: 'x', serial: 'SSH1' }],
    });
  });
});
