// The documented multi-node set-up (config/README.md, "Several nodes on one database"; issue 6,
// "Several nodes"): two real `authsrv serve` processes with their own node_name, port and data
// directory on one database (PostgreSQL, MariaDB, or one SQLite file both open). The second node
// joins as the README says: the first node starts, then its encryption.key, signing.key and
// jwt.secret are copied (mode 0600) into the second node's data directory before that one starts.
// Then: logins spread over both nodes, a challenge made on one is answered on the other, one OTP
// value is accepted once across both under concurrent load, and a policy change on one applies on
// the other at once, as does a token attached to or detached from a machine for offline; and
// each node runs a periodic task that names both.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type Cli,
  CREATED,
  callNode as call,
  launch,
  stop,
} from '../helpers/authsrv-process.ts';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { checkSignedBody } from '../helpers/signature.ts';
import { writePasswdFile } from '../helpers/user-stores.ts';

const LISTENING = /^authsrv (\S+) listening on (https?:\/\/\S+)/m;
const KEY = '3132333435363738393031323334353637383930';
/** The files config/README.md says every node must hold copies of. */
const SHARED_FILES = ['encryption.key', 'signing.key', 'jwt.secret'] as const;

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
function ok(r: Answer): any {
  if (r.status !== 200 || r.json?.result?.status !== true) {
    throw new Error(`expected success, got HTTP ${r.status}: ${r.text}`);
  }
  return r.json.result.value;
}

// SQLite too: two processes on one database file on one machine share it the same way (WAL).
const DIALECTS = testDialects();

describe.each(DIALECTS)('two authsrv serve nodes on one %s database', (dialect) => {
  let home: string;
  let db: TestDatabase | undefined;
  const nodes: Cli[] = [];
  let a: string;
  let b: string;
  let admin: string;
  /** The next unused HOTP counter of alice's token. */
  let counter = 0;

  const check = async (base: string, params: Record<string, string>) => {
    const r = await call(base, 'POST', '/validate/check', params);
    expect(r.status, r.text).toBe(200);
    expect(r.json.result.status, r.text).toBe(true);
    return r.json;
  };

  const nodeEnv = (name: string, dataDir: string): Record<string, string> => ({
    AUTHSRV_NODE_NAME: name,
    AUTHSRV_DATA_DIR: dataDir,
    AUTHSRV_DATABASE_URL: db!.url,
    AUTHSRV_HTTP_PORT: '0',
    // The passwd files of the resolvers, read by both nodes, are in the directory above theirs.
    AUTHSRV_FILES_ALLOWED_DIRS: home,
  });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-multi-'));
    db = await createTestDatabase(dialect);
    const dataA = join(home, 'node-a');
    const dataB = join(home, 'node-b');

    // The first node creates its keys, the schema and the first administrator.
    const first = launch(['serve'], nodeEnv('node-a', dataA), home);
    nodes.push(first);
    const password = (await first.waitFor(CREATED))[1]!;
    a = (await first.waitFor(LISTENING))[2]!;

    // The second node gets copies of the three shared files, mode 0600, before its first start.
    mkdirSync(dataB, { mode: 0o700 });
    for (const f of SHARED_FILES) {
      copyFileSync(join(dataA, f), join(dataB, f));
      expect((statSync(join(dataB, f)).mode & 0o777).toString(8)).toBe('600');
    }
    const second = launch(['serve'], nodeEnv('node-b', dataB), home);
    nodes.push(second);
    b = (await second.waitFor(LISTENING))[2]!;
    expect(second.output().stdout).not.toMatch(CREATED);

    admin = ok(await call(a, 'POST', '/auth', { username: 'admin', password })).token;

    // Users, realm and token, all created through node A after node B has started.
    const file = await writePasswdFile(home, 'users', [{ login: 'alice', password: 'alicepw', uid: 1001 }]);
    ok(await call(a, 'POST', '/resolver/res1', { type: 'passwdresolver', Filename: file }, admin));
    ok(await call(a, 'POST', '/realm/realm1', { resolvers: 'res1' }, admin));
    ok(
      await call(
        a,
        'POST',
        '/token/init',
        { type: 'hotp', serial: 'MULTI1', otpkey: KEY, pin: 'pin', user: 'alice', realm: 'realm1' },
        admin,
      ),
    );
    // A token without a PIN: nothing slows the requests down before the OTP check.
    ok(await call(a, 'POST', '/token/init', { type: 'hotp', serial: 'MULTI2', otpkey: KEY }, admin));
    ok(await call(a, 'POST', '/token/set', { serial: 'MULTI2', max_failcount: '1000' }, admin));
  });

  afterAll(async () => {
    for (const n of nodes) await stop(n);
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('runs both nodes with the shared keys: one JWT, one signing key, distinct node names', async () => {
    expect(a).not.toBe(b);
    // signing.pub is derived from the copied signing.key.
    expect(readFileSync(join(home, 'node-b', 'signing.pub'), 'utf8')).toBe(
      readFileSync(join(home, 'node-a', 'signing.pub'), 'utf8'),
    );
    // The administrator token of node A is accepted by node B.
    const onB = await call(b, 'GET', '/token/', { serial: 'MULTI1' }, admin);
    expect(ok(onB).tokens.map((t: { serial: string }) => t.serial)).toEqual(['MULTI1']);
    // Node B's answers verify with node A's public key.
    const signed = await checkSignedBody(onB.text, join(home, 'node-a', 'signing.pub'));
    expect(signed.verified, signed.opensslOutput).toBe(true);
  });

  it('refuses to start a node whose encryption.key was not copied from the first node', async () => {
    const stray = launch(['serve'], nodeEnv('node-x', join(home, 'node-x')), home);
    const exit = await stray.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(stray.output().stdout).not.toMatch(LISTENING);
    expect(stray.output().stderr).toContain('encryption.key');
    // The remedy: copy the three files over the ones it generated, and start it again.
    const dir = join(home, 'node-x');
    for (const f of SHARED_FILES) copyFileSync(join(home, 'node-a', f), join(dir, f));
    const fixed = launch(['serve'], nodeEnv('node-x', dir), home);
    nodes.push(fixed);
    const url = (await fixed.waitFor(LISTENING))[2]!;
    expect(readFileSync(join(dir, 'signing.pub'), 'utf8')).toBe(
      readFileSync(join(home, 'node-a', 'signing.pub'), 'utf8'),
    );
    expect(ok(await call(url, 'GET', '/token/', { serial: 'MULTI1' }, admin)).count).toBe(1);
    expect(await stop(fixed)).toEqual({ code: 0, signal: null });
  });

  it('accepts logins spread over both nodes, and both nodes audit them under their own names', async () => {
    for (let i = 0; i < 10; i++) {
      const node = i % 2 === 0 ? a : b;
      const r = await check(node, { user: 'alice', realm: 'realm1', pass: `pin${hotp(KEY, counter++)}` });
      expect(r.result.value, `login ${i} on ${node}`).toBe(true);
      expect(r.result.authentication).toBe('ACCEPT');
    }
    // A value already used on the other node is refused.
    const replay = await check(b, { user: 'alice', realm: 'realm1', pass: `pin${hotp(KEY, counter - 2)}` });
    expect(replay.result.value).toBe(false);
    ok(await call(a, 'POST', '/token/reset', { serial: 'MULTI1' }, admin));

    const rows = async (base: string) =>
      ok(
        await call(
          base,
          'GET',
          '/audit/',
          { action: 'POST /validate/check', authentication: 'ACCEPT', page_size: '100' },
          admin,
        ),
      ).auditdata as { privacyidea_server: string; sig_check: string; user: string; serial: string }[];
    let seen: Awaited<ReturnType<typeof rows>>[] = [];
    // Audit rows may be written in short batches: wait for all ten.
    for (let i = 0; i < 50; i++) {
      seen = [await rows(a), await rows(b)];
      if (seen.every((s) => s.length >= 10)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const view of seen) {
      expect(view).toHaveLength(10);
      const byNode = new Map<string, number>();
      for (const row of view)
        byNode.set(row.privacyidea_server, (byNode.get(row.privacyidea_server) ?? 0) + 1);
      expect(Object.fromEntries(byNode)).toEqual({ 'node-a': 5, 'node-b': 5 });
      // Each node verifies the rows the other signed.
      expect(new Set(view.map((row) => row.sig_check))).toEqual(new Set(['OK']));
      expect(new Set(view.map((row) => `${row.user} ${row.serial}`))).toEqual(new Set(['alice MULTI1']));
    }
  });

  it('answers on one node a challenge created on the other', async () => {
    ok(
      await call(
        a,
        'POST',
        '/policy/cr',
        { scope: 'authentication', action: 'challenge_response=hotp' },
        admin,
      ),
    );
    const challenge = await check(a, { user: 'alice', realm: 'realm1', pass: 'pin' });
    expect(challenge.result.authentication, JSON.stringify(challenge)).toBe('CHALLENGE');
    const tid: string = challenge.detail.transaction_id;
    expect(tid).toMatch(/^\d+$/);
    for (const node of [a, b]) {
      const poll = await call(node, 'GET', '/validate/polltransaction', { transaction_id: tid });
      expect(poll.json.result, poll.text).toMatchObject({ status: true, value: false });
      expect(poll.json.detail.challenge_status).toBe('pending');
    }
    const answer = await check(b, {
      user: 'alice',
      realm: 'realm1',
      transaction_id: tid,
      pass: hotp(KEY, counter++),
    });
    expect(answer.result.value, JSON.stringify(answer)).toBe(true);
    expect(answer.result.authentication).toBe('ACCEPT');
    expect(answer.detail.serial).toBe('MULTI1');
    // Both nodes now see the same state of the transaction, and it cannot be answered again.
    const polls = await Promise.all([a, b].map((n) => call(n, 'GET', `/validate/polltransaction/${tid}`)));
    expect(polls[0]!.json.result).toEqual(polls[1]!.json.result);
    expect(polls[0]!.json.detail.challenge_status).toBe(polls[1]!.json.detail.challenge_status);
    const again = await check(a, {
      user: 'alice',
      realm: 'realm1',
      transaction_id: tid,
      pass: hotp(KEY, counter),
    });
    expect(again.result.value).toBe(false);
    ok(await call(a, 'POST', '/token/reset', { serial: 'MULTI1' }, admin));
  });

  it('accepts one OTP value exactly once when twenty requests carry it to both nodes at once', async () => {
    // PIN and OTP of a user (each request also hashes the PIN).
    const pass = `pin${hotp(KEY, counter++)}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        check(i % 2 === 0 ? a : b, { user: 'alice', realm: 'realm1', pass }),
      ),
    );
    const accepted = answers.filter((r) => r.result.value === true);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.result.authentication).toBe('ACCEPT');
    expect(answers.filter((r) => r.result.value === false)).toHaveLength(19);
    // The losers replayed a spent value (not counted as failures); a reset keeps the token usable.
    ok(await call(b, 'POST', '/token/reset', { serial: 'MULTI1' }, admin));
    for (const c of [0, 1]) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          check(i % 2 === 0 ? a : b, { serial: 'MULTI2', pass: hotp(KEY, c) }),
        ),
      );
      expect(answers.filter((r) => r.result.value === true)).toHaveLength(1);
      expect(answers.filter((r) => r.result.value === false)).toHaveLength(19);
      // The losers replayed a value spent by the winner: refused on whichever node they reached,
      // and not counted toward the fail limit (docs/security.md, "Brute-force throttling").
      const t = ok(await call(a, 'GET', '/token/', { serial: 'MULTI2' }, admin)).tokens[0];
      expect(t.failcount).toBe(0);
      ok(await call(b, 'POST', '/token/reset', { serial: 'MULTI2' }, admin));
    }
    // The token's counter moved past the value on both nodes: the next value works on either.
    expect(
      (await check(b, { user: 'alice', realm: 'realm1', pass: `pin${hotp(KEY, counter++)}` })).result.value,
    ).toBe(true);
    expect(
      (await check(a, { user: 'alice', realm: 'realm1', pass: `pin${hotp(KEY, counter++)}` })).result.value,
    ).toBe(true);
  });

  it('applies a policy change made on one node at the next request on the other', async () => {
    const pinOnly = async (node: string) =>
      (await check(node, { user: 'alice', realm: 'realm1', pass: 'pin' })).result.authentication as string;
    // Both nodes have compiled the policies with cr active.
    expect(await pinOnly(a)).toBe('CHALLENGE');
    expect(await pinOnly(b)).toBe('CHALLENGE');
    ok(await call(b, 'POST', '/policy/disable/cr', {}, admin));
    expect(await pinOnly(a)).toBe('REJECT');
    ok(await call(a, 'POST', '/policy/enable/cr', {}, admin));
    expect(await pinOnly(b)).toBe('CHALLENGE');
    ok(await call(a, 'DELETE', '/policy/cr', {}, admin));
    expect(await pinOnly(b)).toBe('REJECT');
    // A policy made on B for node-a only (servicenode) applies on A, not on B.
    ok(
      await call(
        b,
        'POST',
        '/policy/cr-a',
        { scope: 'authentication', action: 'challenge_response=hotp', pinode: 'node-a' },
        admin,
      ),
    );
    expect(await pinOnly(a)).toBe('CHALLENGE');
    expect(await pinOnly(b)).toBe('REJECT');
    ok(await call(b, 'POST', '/token/reset', { serial: 'MULTI1' }, admin));
    // A login still works on both afterwards.
    expect(
      (await check(a, { user: 'alice', realm: 'realm1', pass: `pin${hotp(KEY, counter++)}` })).result.value,
    ).toBe(true);
  });

  it('uses on one node a resolver changed on the other at its next request', async () => {
    const logins = async (node: string) =>
      (ok(await call(node, 'GET', '/user/', { realm: 'realm1' }, admin)) as { username: string }[])
        .map((u) => u.username)
        .sort();
    expect(await logins(a)).toEqual(['alice']);
    expect(await logins(b)).toEqual(['alice']);
    const more = await writePasswdFile(home, 'users2', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
      { login: 'bob', password: 'bobpw', uid: 1002 },
    ]);
    ok(await call(b, 'POST', '/resolver/res1', { type: 'passwdresolver', Filename: more }, admin));
    expect(await logins(a)).toEqual(['alice', 'bob']);
    expect(await logins(b)).toEqual(['alice', 'bob']);
  });

  it('issues offline values on one node at once after an attachment on the other, and stops once detached', async () => {
    ok(await call(a, 'POST', '/token/init', { type: 'hotp', serial: 'MULTI3', otpkey: KEY }, admin));
    const count = 2;
    let next = 0;
    /** A successful check of MULTI3 on a node: the serials of the offline items it issued. */
    const offline = async (node: string): Promise<string[]> => {
      const r = await check(node, { serial: 'MULTI3', pass: hotp(KEY, next) });
      expect(r.result.value, JSON.stringify(r)).toBe(true);
      const items: { serial: string }[] = r.auth_items?.offline ?? [];
      next += 1 + (items.length > 0 ? count : 0);
      return items.map((i) => i.serial);
    };
    const attach = async (node: string) =>
      ok(
        await call(
          node,
          'POST',
          '/machine/token',
          { serial: 'MULTI3', application: 'offline', count: String(count), rounds: '10' },
          admin,
        ),
      ) as number;
    // Both nodes know the token is attached nowhere.
    expect(await offline(a)).toEqual([]);
    expect(await offline(b)).toEqual([]);
    const mtid = await attach(a);
    expect(await offline(b)).toEqual(['MULTI3']);
    ok(await call(a, 'DELETE', `/machine/token/MULTI3/offline/${mtid}`, {}, admin));
    expect(await offline(b)).toEqual([]);
    await attach(b);
    expect(await offline(a)).toEqual(['MULTI3']);
    expect(await offline(b)).toEqual(['MULTI3']);
    ok(await call(b, 'DELETE', '/token/MULTI3', {}, admin));
    expect(ok(await call(a, 'GET', '/machine/token', {}, admin))).toEqual([]);
  });

  it('ends on both nodes the sessions of an administrator logged out, then deleted, with the CLI', async () => {
    const cli = async (args: string[], input?: string) => {
      const run = launch(args, nodeEnv('node-a', join(home, 'node-a')), home);
      run.child.stdin!.end(input ?? '');
      const exit = await run.exited;
      expect(exit.code, run.output().stderr).toBe(0);
      return run.output().stdout;
    };
    const tokenList = (node: string, token: string) => call(node, 'GET', '/token/', {}, token);
    /** The node refuses the token as an invalid one within a second and a half (REUSE_MS is one). */
    const refusedBy = async (node: string, token: string) => {
      const until = Date.now() + 1500;
      let r = await tokenList(node, token);
      while (r.status === 200 && Date.now() < until) {
        await new Promise((done) => setTimeout(done, 100));
        r = await tokenList(node, token);
      }
      expect(r.status, r.text).toBe(401);
      expect(r.json.result.error.code).toBe(4304);
    };
    const opsLogin = async (node: string) =>
      ok(await call(node, 'POST', '/auth', { username: 'ops', password: 'Ops-pass-123' })).token as string;
    await cli(['admin', 'add', 'ops', '--password-stdin'], 'Ops-pass-123\n');
    const old = await opsLogin(a);
    expect((await tokenList(b, old)).status).toBe(200);
    // JWTs carry whole seconds: the logout comes in a later second than the login.
    await new Promise((done) => setTimeout(done, 1010 - (Date.now() % 1000)));
    expect(JSON.parse(await cli(['admin', 'logout', 'ops', '--json']))).toMatchObject({ name: 'ops' });
    await refusedBy(b, old);
    await refusedBy(a, old);
    const fresh = await opsLogin(b);
    expect((await tokenList(a, fresh)).status).toBe(200);
    await cli(['admin', 'delete', 'ops']);
    await refusedBy(a, fresh);
    await refusedBy(b, fresh);
    expect((await tokenList(b, admin)).status).toBe(200);
  });

  it('runs a periodic task on each node it names, by the servers themselves (docs/tasks.md)', async () => {
    const id = ok(
      await call(
        a,
        'POST',
        '/periodictask/',
        {
          name: 'every-second',
          interval: '* * * * * *',
          nodes: 'node-a,node-b',
          taskmodule: 'ChallengeCleanup',
          ordering: '0',
        },
        admin,
      ),
    );
    // Each server looks for due tasks every 10 seconds: wait (up to a minute) for both runs.
    let lastRuns: Record<string, string> = {};
    for (let i = 0; i < 120 && Object.keys(lastRuns).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 500));
      lastRuns = ok(await call(b, 'GET', `/periodictask/${id}`, {}, admin)).last_runs;
    }
    expect(Object.keys(lastRuns).sort()).toEqual(['node-a', 'node-b']);
    expect(ok(await call(a, 'DELETE', `/periodictask/${id}`, {}, admin))).toBe(id);
  });

  it('verifies the audit rows of both nodes with either data directory (`authsrv audit verify`)', async () => {
    for (const [name, dir] of [
      ['node-a', 'node-a'],
      ['node-b', 'node-b'],
    ] as const) {
      const cli = launch(['audit', 'verify', '--json'], nodeEnv(name, join(home, dir)), home);
      const exit = await cli.exited;
      const { stdout, stderr } = cli.output();
      expect(exit.code, `${stdout}\n${stderr}`).toBe(0);
      const r = JSON.parse(stdout);
      expect(r.checked).toBeGreaterThan(50);
      expect(r.badSignatures).toEqual([]);
      expect(r.gapsAfter).toEqual([]);
    }
  });
});
