import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REALM_VERSION_ROW, readCounters } from '../../../src/core/change-counters.ts';
import { type Context, localOperator, type Runtime, withCaller } from '../../../src/core/context.ts';
import { defaultRealm, orderedResolvers, realmExists } from '../../../src/core/directory/realms.ts';
import { userStore } from '../../../src/core/directory/user-stores.ts';
import { findUser, resolversOfUser, splitLogin } from '../../../src/core/directory/users.ts';
import { clearDefaultRealm, deleteRealm, setDefaultRealm, setRealm } from '../../../src/core/realm/realm.ts';
import { deleteResolver, saveResolver } from '../../../src/core/resolver/resolver.ts';
import { openRuntime } from '../../../src/core/runtime.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { holdStatements, recordSql } from '../../helpers/sql-recorder.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

const REALM_TABLES = /\b(from|join|into|update)\s+["`](realm|realm_resolver|resolver)["`]/i;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDialects())('the realm directory on %s', (dialect) => {
  let a: TestRuntime;
  /** A second node: its own connection pool and caches on the same database. */
  let b: Runtime;
  let bctx: Context;
  let files: { one: string; two: string; three: string };

  beforeEach(async () => {
    a = await openTestRuntime(dialect);
    b = await openRuntime(a.rt.config, { logger: pino({ level: 'silent' }), clock: () => a.rt.clock() });
    bctx = withCaller(b, localOperator());
    files = {
      one: await writePasswdFile(a.dataDir, 'one', [
        { login: 'alice', uid: 1001 },
        { login: 'carol', uid: 1003 },
      ]),
      two: await writePasswdFile(a.dataDir, 'two', [
        { login: 'alice', uid: 2001 },
        { login: 'bob', uid: 2002 },
      ]),
      three: await writePasswdFile(a.dataDir, 'three', [{ login: 'alice', uid: 3001 }]),
    };
  });
  afterEach(async () => {
    await b?.store.close();
    await a?.close();
  });

  const passwd = (Filename: string) => ({ type: 'passwdresolver', Filename });
  const metaRow = async () =>
    (
      await a.rt.store.db
        .selectFrom('meta')
        .select('value')
        .where('name', '=', REALM_VERSION_ROW)
        .executeTakeFirst()
    )?.value;
  /**
   * What every request that reads policies does first: a fresh read of the change counters (a
   * caller that reads none sees another node's change at most REUSE_MS late).
   */
  const startRequest = async (rt: Runtime) => void (await readCounters(rt.store));
  const userOf = async (rt: Runtime, login: string, realm: string) => {
    const u = await findUser(rt, login, realm);
    return u && { resolver: u.resolver, userid: u.userid, realm: u.realm };
  };

  it('moves realm_version with every write of the realm tables, and only then', async () => {
    expect(await metaRow()).toBeUndefined();
    expect((await readCounters(a.rt.store)).realm).toBe(0);
    await saveResolver(a.ctx, 'res1', passwd(files.one));
    expect(await metaRow()).toBe('1');
    await saveResolver(a.ctx, 'res1', { Filename: files.three });
    expect(await metaRow()).toBe('2');
    await setRealm(a.ctx, 'r1', ['res1'], {});
    expect(await metaRow()).toBe('3');
    await setRealm(a.ctx, 'r2', ['res1'], { res1: 4 });
    expect(await metaRow()).toBe('4');
    await setDefaultRealm(a.ctx, 'r2');
    expect(await metaRow()).toBe('5');
    await clearDefaultRealm(a.ctx);
    expect(await metaRow()).toBe('6');
    await deleteRealm(a.ctx, 'r2');
    await deleteRealm(a.ctx, 'r1');
    await deleteResolver(a.ctx, 'res1');
    expect(await metaRow()).toBe('9');
    // Writes that fail or change nothing leave it.
    expect(await clearDefaultRealm(a.ctx)).toBe(0);
    expect(await deleteResolver(a.ctx, 'res1')).toBe(-1);
    await expect(setRealm(a.ctx, 'r3', ['nothing'], {})).rejects.toThrow(/None of the resolvers/);
    await expect(deleteRealm(a.ctx, 'r3')).rejects.toThrow(/could not be found/);
    await expect(saveResolver(a.ctx, 'res2', { ...passwd(files.one), Bogus: 'x' })).rejects.toThrow(
      /Unknown setting/,
    );
    expect(await metaRow()).toBe('9');
    expect((await readCounters(b.store)).realm).toBe(9);
  });

  it('shows every change made on one node to the other', async () => {
    // Node b has its directory loaded before anything exists.
    expect(await realmExists(b, 'r1')).toBe(false);
    expect(await defaultRealm(b)).toBeUndefined();
    expect(await userOf(b, 'alice', 'r1')).toBeUndefined();

    // A resolver and the first realm (which becomes the default).
    await saveResolver(a.ctx, 'res1', passwd(files.one));
    await setRealm(a.ctx, 'R1', ['res1'], {});
    await startRequest(b);
    expect(await realmExists(b, 'r1')).toBe(true);
    expect(await realmExists(b, 'R1')).toBe(true);
    expect(await defaultRealm(b)).toBe('r1');
    expect(await splitLogin(b, 'alice', undefined)).toEqual({ login: 'alice', realm: 'r1' });
    expect(await splitLogin(b, 'alice@R1', undefined)).toEqual({ login: 'alice', realm: 'r1' });
    expect(await userOf(b, 'alice', 'R1')).toEqual({ resolver: 'res1', userid: '1001', realm: 'r1' });

    // A second resolver listed first, then priorities that put it last.
    await saveResolver(a.ctx, 'res2', passwd(files.two));
    await setRealm(a.ctx, 'r1', ['res2', 'res1'], {});
    await startRequest(b);
    expect(await userOf(b, 'alice', 'r1')).toEqual({ resolver: 'res2', userid: '2001', realm: 'r1' });
    expect(await resolversOfUser(b, 'alice', 'r1')).toEqual(['res2', 'res1']);
    await setRealm(a.ctx, 'r1', ['res2', 'res1'], { res1: 1, res2: 5 });
    await startRequest(b);
    expect(await userOf(b, 'alice', 'r1')).toEqual({ resolver: 'res1', userid: '1001', realm: 'r1' });
    expect((await orderedResolvers(b, 'r1')).map((r) => [r.name, r.priority])).toEqual([
      ['res1', 1],
      ['res2', 5],
    ]);

    // Changed settings of a resolver: node b asks the new user store.
    await saveResolver(a.ctx, 'res1', { Filename: files.three });
    await startRequest(b);
    expect(await userOf(b, 'alice', 'r1')).toEqual({ resolver: 'res1', userid: '3001', realm: 'r1' });
    expect(await userOf(b, 'carol', 'r1')).toBeUndefined();

    // Another realm made the default, then no default at all.
    await setRealm(a.ctx, 'r2', ['res2'], {});
    await startRequest(b);
    expect(await defaultRealm(b)).toBe('r1');
    expect(await splitLogin(b, 'bob@r2', undefined)).toEqual({ login: 'bob', realm: 'r2' });
    await setDefaultRealm(a.ctx, 'r2');
    await startRequest(b);
    expect(await defaultRealm(b)).toBe('r2');
    expect(await splitLogin(b, 'bob', undefined)).toEqual({ login: 'bob', realm: 'r2' });
    await clearDefaultRealm(a.ctx);
    await startRequest(b);
    expect(await defaultRealm(b)).toBeUndefined();
    expect(await splitLogin(b, 'bob', undefined)).toEqual({ login: 'bob', realm: '' });

    // A realm deleted: its name is no realm any more, and its users are gone.
    await deleteRealm(a.ctx, 'r1');
    await startRequest(b);
    expect(await realmExists(b, 'r1')).toBe(false);
    expect(await userOf(b, 'alice', 'r1')).toBeUndefined();
    expect(await splitLogin(b, 'alice@r1', undefined)).toEqual({ login: 'alice@r1', realm: '' });
    // Deleting the default realm when exactly one other remains makes that one the default.
    await setDefaultRealm(a.ctx, 'r2');
    await setRealm(a.ctx, 'r3', ['res1'], {});
    await deleteRealm(a.ctx, 'r2');
    await startRequest(b);
    expect(await defaultRealm(b)).toBe('r3');

    // A resolver deleted: its store is no longer found by name.
    await deleteRealm(a.ctx, 'r3');
    expect(await userStore(b, 'res1')).toMatchObject({ name: 'res1' });
    await deleteResolver(a.ctx, 'res1');
    await startRequest(b);
    await expect(userStore(b, 'res1')).rejects.toThrow(/does not exist/);

    // And the other way round: a write on node b is seen by node a.
    expect(await realmExists(a.rt, 'r4')).toBe(false);
    await setRealm(bctx, 'r4', ['res2'], {});
    await startRequest(a.rt);
    expect(await realmExists(a.rt, 'r4')).toBe(true);
    expect(await userOf(a.rt, 'bob', 'r4')).toEqual({ resolver: 'res2', userid: '2002', realm: 'r4' });
  });

  it('shows a change made on this node at once, without a new read of the counters', async () => {
    await saveResolver(a.ctx, 'res1', passwd(files.one));
    await setRealm(a.ctx, 'r1', ['res1'], {});
    expect(await realmExists(a.rt, 'r1')).toBe(true);
    await saveResolver(a.ctx, 'res2', passwd(files.two));
    await setRealm(a.ctx, 'r1', ['res2', 'res1'], {});
    expect(await userOf(a.rt, 'alice', 'r1')).toEqual({ resolver: 'res2', userid: '2001', realm: 'r1' });
    await deleteRealm(a.ctx, 'r1');
    expect(await realmExists(a.rt, 'r1')).toBe(false);
    expect(await defaultRealm(a.rt)).toBeUndefined();
  });

  it('answers repeated lookups without a statement on the realm tables', async () => {
    await saveResolver(a.ctx, 'res1', passwd(files.one));
    await saveResolver(a.ctx, 'res2', passwd(files.two));
    await setRealm(a.ctx, 'r1', ['res1', 'res2'], {});
    const lookups = async () => {
      await startRequest(b);
      expect(await splitLogin(b, 'carol@r1', undefined)).toEqual({ login: 'carol', realm: 'r1' });
      expect(await splitLogin(b, 'carol', undefined)).toEqual({ login: 'carol', realm: 'r1' });
      expect(await splitLogin(b, 'carol@nowhere', undefined)).toEqual({
        login: 'carol@nowhere',
        realm: 'r1',
      });
      expect(await realmExists(b, 'r1')).toBe(true);
      expect(await defaultRealm(b)).toBe('r1');
      expect(await userOf(b, 'carol', 'r1')).toMatchObject({ resolver: 'res1' });
      expect(await userOf(b, 'bob', 'r1')).toMatchObject({ resolver: 'res2' });
      expect(await resolversOfUser(b, 'alice', 'r1')).toEqual(['res1', 'res2']);
      expect((await userStore(b, 'RES2')).name).toBe('res2');
    };
    await lookups();
    const sql = recordSql(b);
    for (let i = 0; i < 3; i++) {
      await lookups();
      const list = sql.take();
      // The counters only (the fresh read at the start of each "request").
      expect(
        list.filter((q) => !/from ["`]meta["`]/.test(q)),
        list.join('\n'),
      ).toEqual([]);
      expect(list.length).toBeGreaterThan(0);
    }
    // After a change on the other node, concurrent lookups share one load of the directory.
    await setRealm(a.ctx, 'r1', ['res2'], {});
    await startRequest(b);
    sql.take();
    const [exists, user, realm] = await Promise.all([
      realmExists(b, 'r1'),
      userOf(b, 'alice', 'r1'),
      defaultRealm(b),
      orderedResolvers(b, 'r1'),
      splitLogin(b, 'x@r1', undefined),
    ]);
    expect([exists, user, realm]).toEqual([true, { resolver: 'res2', userid: '2001', realm: 'r1' }, 'r1']);
    const reload = sql.take();
    expect(
      reload.filter((q) => /from ["`]realm["`]/i.test(q)),
      reload.join('\n'),
    ).toHaveLength(1);
    expect(
      reload.filter((q) => REALM_TABLES.test(q)),
      reload.join('\n'),
    ).toHaveLength(3);
  });

  it('hands out rows no caller can change', async () => {
    await saveResolver(a.ctx, 'res1', passwd(files.one));
    await setRealm(a.ctx, 'r1', ['res1'], { res1: 3 });
    const rows = await orderedResolvers(a.rt, 'r1');
    expect(rows).toHaveLength(1);
    expect(Object.isFrozen(rows[0])).toBe(true);
    expect(() => {
      (rows[0] as { priority: number | null }).priority = 0;
    }).toThrow(TypeError);
    const first = rows.pop()!;
    rows.push({ ...first, name: 'intruder' });
    const again = await orderedResolvers(a.rt, 'r1');
    expect(again.map((r) => [r.name, r.priority])).toEqual([['res1', 3]]);
    expect(again).not.toBe(rows);
  });

  it('keeps node-specific rows for their node only', async () => {
    await saveResolver(a.ctx, 'res1', passwd(files.one));
    await saveResolver(a.ctx, 'res2', passwd(files.two));
    await setRealm(a.ctx, 'r1', ['res1'], {});
    // A row for another node and one for this node (test-node), written as an import would.
    const realmId = (await a.rt.store.db.selectFrom('realm').select('id').executeTakeFirstOrThrow()).id;
    const res2 = (
      await a.rt.store.db
        .selectFrom('resolver')
        .select('id')
        .where('name', '=', 'res2')
        .executeTakeFirstOrThrow()
    ).id;
    await a.rt.store.db
      .insertInto('realm_resolver')
      .values({ realm_id: realmId, resolver_id: res2, priority: 0, position: 0, node: 'elsewhere' })
      .execute();
    // A direct write moves no counter: the directory is rebuilt by the next write that does.
    await saveResolver(a.ctx, 'res1', { Filename: files.one });
    expect((await orderedResolvers(a.rt, 'r1')).map((r) => r.name)).toEqual(['res1']);
    await a.rt.store.db
      .insertInto('realm_resolver')
      .values({ realm_id: realmId, resolver_id: res2, priority: 0, position: 1, node: a.rt.node })
      .execute();
    await saveResolver(a.ctx, 'res1', { Filename: files.one });
    expect((await orderedResolvers(a.rt, 'r1')).map((r) => [r.name, r.node])).toEqual([
      ['res2', a.rt.node],
      ['res1', ''],
    ]);
  });

  it('hands out no load begun before a local write', async () => {
    await saveResolver(a.ctx, 'res1', passwd(files.one));
    // A directory load whose realm rows arrive only after the next write has committed.
    const gate = holdStatements(a.rt, /^select .* from ["`]realm["`] order by/i);
    const before = realmExists(a.rt, 'r1');
    while (!gate.holding()) await sleep(5);
    gate.stop();
    await setRealm(a.ctx, 'r1', ['res1'], {});
    const after = realmExists(a.rt, 'r1');
    expect(await Promise.race([after, sleep(3000).then(() => 'joined the load begun before')])).toBe(true);
    gate.release();
    expect(await before).toBe(false);
    // Nor does that load, ending last, stay in the cache.
    expect(await realmExists(a.rt, 'r1')).toBe(true);
    expect(await defaultRealm(a.rt)).toBe('r1');
  });
});
