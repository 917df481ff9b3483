import { spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { ensureDataDir } from '../../src/crypto/data-dir-files.ts';
import { SecurityModule } from '../../src/crypto/security-module.ts';
import { loadServerKeys } from '../../src/crypto/server-keys.ts';
import { HsmError } from '../../src/errors.ts';
import { migrate, openDatabase, type Store } from '../../src/store/database.ts';
import { LATEST_MIGRATION, migrationProvider } from '../../src/store/migrations.ts';
import { isUniqueViolation } from '../../src/store/unique-violation.ts';

const ALL_MIGRATIONS = [
  '0001_base',
  '0002_user_stores',
  '0003_policies',
  '0004_policy_version',
  '0005_tokens',
  '0006_clients',
  '0007_tokengroups',
  '0008_listing_speed',
  '0009_sessions',
  '0010_login_failure',
  '0011_machines',
  '0012_machine_tokens',
  '0013_machinetoken_unique',
  '0014_smtpservers',
  '0015_smsgateways',
  '0016_radiusservers',
  '0017_events',
  '0018_periodictasks',
  '0019_monitoring',
  '0021_gpgkeys',
  '0022_caconnector',
  '0023_radiusclients',
  '0024_admin_pepper',
  '0025_audit_import',
];

import { blankAuditRow } from '../helpers/audit-rows.ts';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/dialects.ts';

const ROOT = join(import.meta.dirname, '../..');
const TABLES = [
  'admin',
  'session_revocation',
  'login_failure',
  'audit',
  'config',
  'meta',
  'node',
  'resolver',
  'realm',
  'realm_resolver',
  'user_attribute',
  'policy',
  'token',
  'tokeninfo',
  'tokenrealm',
  'tokenowner',
  'challenge',
  'clients',
  'tokengroup',
  'tokengroup_token',
  'serviceid',
  'machineresolver',
  'machinetoken',
  'machinetoken_option',
  'smsgateway',
  'smsgateway_option',
  'smtpserver',
  'radiusserver',
  'eventhandler',
  'eventcounter',
  'periodictask',
  'periodictask_option',
  'periodictask_lastrun',
  'monitoringstats',
  'gpgkey',
  'caconnector',
  'caconnectorconfig',
  'carevoked',
  'radiusclient',
];
const silent = pino({ level: 'silent' });

function auditRow(info: string) {
  return {
    ...blankAuditRow(new Date().toISOString()),
    duration: 0.01,
    action: 'POST /test',
    info,
    signature: '',
  };
}

/** Runs `bin/authsrv` with the given arguments; resolves with its exit code and output. */
function cli(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin/authsrv'), ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.each(testDialects())('storage on %s', (dialect) => {
  let tmp: string;
  let db: TestDatabase;
  const opened: (Store | Runtime)[] = [];

  beforeEach(async () => {
    tmp = mkdtempSync(join(tmpdir(), `authsrv-store-${dialect}-`));
    db = await createTestDatabase(dialect, tmp);
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await ('store' in s ? s.store : s).close();
    await db.drop();
    rmSync(tmp, { recursive: true, force: true });
  });

  function config(dataDir: string, extra: Record<string, string> = {}) {
    return loadConfig({
      env: {},
      overrides: { data_dir: dataDir, database_url: db.url, node_name: 'test-node', ...extra },
    });
  }

  async function open(dataDir: string, extra: Record<string, string> = {}): Promise<Runtime> {
    const rt = await openRuntime(config(dataDir, extra), { logger: silent });
    opened.push(rt);
    return rt;
  }

  it('migrates an empty database to the latest schema, once', async () => {
    const store = await openDatabase(db.url, tmp);
    opened.push(store);
    const before = await store.db.introspection.getTables();
    expect(before.map((t) => t.name)).toEqual([]);

    expect(await migrate(store)).toEqual(ALL_MIGRATIONS);
    expect(LATEST_MIGRATION).toBe(ALL_MIGRATIONS.at(-1));
    const tables = (await store.db.introspection.getTables()).map((t) => t.name);
    for (const t of TABLES) expect(tables).toContain(t);

    const audit = (await store.db.introspection.getTables()).find((t) => t.name === 'audit')!;
    const columns = audit.columns.map((c) => c.name);
    for (const c of ['id', 'date', 'action', 'success', 'serial', 'user', 'realm', 'node', 'signature']) {
      expect(columns).toContain(c);
    }
    expect(audit.columns.find((c) => c.name === 'id')!.isAutoIncrementing).toBe(true);

    expect(await migrate(store)).toEqual([]);
    const again = await openDatabase(db.url, tmp);
    opened.push(again);
    expect(await migrate(again)).toEqual([]);
  });

  it('round-trips rows through every table', async () => {
    const store = await openDatabase(db.url, tmp);
    opened.push(store);
    await migrate(store);
    await store.db
      .insertInto('admin')
      .values({ name: 'admin', password_hash: 'h', created_at: 'now' })
      .execute();
    await store.db
      .insertInto('config')
      .values({ name: 'splitAtSign', value: 'True', type: '', description: 'ÄÖÜ ✓' })
      .execute();
    await store.db
      .insertInto('meta')
      .values({ name: 'x', value: 'y'.repeat(5000) })
      .execute();
    await store.db.insertInto('node').values({ name: 'n1', uuid: 'u', last_seen: 'now' }).execute();
    expect(await store.db.selectFrom('config').selectAll().execute()).toEqual([
      { name: 'splitAtSign', value: 'True', type: '', description: 'ÄÖÜ ✓' },
    ]);
    expect(
      (await store.db.selectFrom('meta').select('value').where('name', '=', 'x').executeTakeFirstOrThrow())
        .value,
    ).toHaveLength(5000);
    // Seeded by 0004: the policy change counter.
    expect(
      (
        await store.db
          .selectFrom('meta')
          .select('value')
          .where('name', '=', 'policy_version')
          .executeTakeFirst()
      )?.value,
    ).toBe('0');
    await expect(
      store.db
        .insertInto('admin')
        .values({ name: 'admin', password_hash: 'h2', created_at: 'now' })
        .execute(),
    ).rejects.toThrow();
  });

  it('keeps the sessions of administrators from before 0009 (valid after the epoch)', async () => {
    const store = await openDatabase(db.url, tmp);
    opened.push(store);
    const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.dialect) });
    expect((await migrator.migrateTo('0008_listing_speed')).error).toBeUndefined();
    await sql`INSERT INTO admin (name, password_hash, created_at) VALUES ('old', 'h', 'now')`.execute(
      store.db,
    );
    expect(await migrate(store)).toEqual([
      '0009_sessions',
      '0010_login_failure',
      '0011_machines',
      '0012_machine_tokens',
      '0013_machinetoken_unique',
      '0014_smtpservers',
      '0015_smsgateways',
      '0016_radiusservers',
      '0017_events',
      '0018_periodictasks',
      '0019_monitoring',
      '0021_gpgkeys',
      '0022_caconnector',
      '0023_radiusclients',
      '0024_admin_pepper',
      '0025_audit_import',
    ]);
    expect(await store.db.selectFrom('admin').select(['name', 'sessions_valid_after']).execute()).toEqual([
      { name: 'old', sessions_valid_after: '1970-01-01T00:00:00.000Z' },
    ]);
  });

  it('keeps one attachment per token, machine and application, the earliest, and any number to no machine (0013)', async () => {
    const store = await openDatabase(db.url, tmp);
    opened.push(store);
    const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.dialect) });
    expect((await migrator.migrateTo('0012_machine_tokens')).error).toBeUndefined();
    const attachment = (token_id: number, machine_id: string | null, application = 'ssh') => ({
      token_id,
      machineresolver_id: machine_id === null ? null : 1,
      machine_id,
      application,
    });
    // What two concurrent attaches could leave before: the same machine twice (with options).
    for (const row of [
      attachment(1, 'm1'),
      attachment(1, 'm1'),
      attachment(1, 'm1', 'offline'),
      attachment(1, 'm2'),
      attachment(2, 'm1'),
      attachment(1, null),
      attachment(1, null),
      attachment(1, 'm1'),
    ])
      await store.db.insertInto('machinetoken').values(row).execute();
    const ids = (await store.db.selectFrom('machinetoken').select('id').orderBy('id').execute()).map((r) =>
      Number(r.id),
    );
    for (const [i, id] of ids.entries())
      await store.db
        .insertInto('machinetoken_option')
        .values({ machinetoken_id: id, key: 'user', value: `u${i}` })
        .execute();
    expect(await migrate(store)).toEqual(
      ALL_MIGRATIONS.slice(ALL_MIGRATIONS.indexOf('0013_machinetoken_unique')),
    );
    const kept = await store.db.selectFrom('machinetoken').select('id').orderBy('id').execute();
    expect(kept.map((r) => Number(r.id))).toEqual([ids[0], ids[2], ids[3], ids[4], ids[5], ids[6]]);
    const options = await store.db
      .selectFrom('machinetoken_option')
      .select('value')
      .orderBy('value')
      .execute();
    expect(options.map((r) => r.value)).toEqual(['u0', 'u2', 'u3', 'u4', 'u5', 'u6']);
    // From now on the database refuses the duplicate itself; attachments to no machine repeat.
    // isUniqueViolation tells the refusal apart on every dialect (attachToken answers its own error).
    await expect(store.db.insertInto('machinetoken').values(attachment(1, 'm1')).execute()).rejects.toSatisfy(
      isUniqueViolation,
    );
    await store.db.insertInto('machinetoken').values(attachment(1, null)).execute();
    expect(await store.db.selectFrom('machinetoken').select('id').execute()).toHaveLength(7);
  });

  it('has the indexes of the admin listings (0008)', async () => {
    const store = await openDatabase(db.url, tmp);
    opened.push(store);
    await migrate(store);
    const query =
      dialect === 'sqlite'
        ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`
        : dialect === 'postgres'
          ? sql<{
              name: string;
            }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()`
          : sql<{ name: string }>`SELECT DISTINCT index_name AS name FROM information_schema.statistics
              WHERE table_schema = DATABASE()`;
    const names = (await query.execute(store.db)).rows.map((r) => r.name);
    for (const n of ['audit_user_id', 'tokenrealm_realm', 'tokenowner_realm', 'audit_date', 'audit_serial'])
      expect(names).toContain(n);
    expect(names).not.toContain('audit_user_realm');
  });

  // token_count exists on PostgreSQL only (the other dialects count with count(*)): the test is
  // declared there only, so no dialect reports it as skipped.
  const onPostgres = dialect === 'postgres' ? it : () => undefined;
  onPostgres(
    'keeps the number of tokens in token_count, also with concurrent writers (0008, PostgreSQL)',
    async () => {
      const store = await openDatabase(db.url, tmp);
      opened.push(store);
      await migrate(store);
      const token = (serial: string) => ({
        serial,
        tokentype: 'hotp',
        description: '',
        otplen: 6,
        maxfail: 10,
        failcount: 0,
        count: 0,
        count_window: 10,
        sync_window: 1000,
        active: 1,
        revoked: 0,
        locked: 0,
        rollout_state: '',
        key_enc: '',
        pin_hash: '',
      });
      const counted = async () => {
        const r = await sql<{ n: string | null }>`SELECT sum(n) AS n FROM token_count`.execute(store.db);
        const c = await store.db
          .selectFrom('token')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        return [Number(r.rows[0]?.n ?? 0), Number(c.n)];
      };
      expect(await counted()).toEqual([0, 0]);
      await store.db.insertInto('token').values(['T1', 'T2', 'T3'].map(token)).execute();
      expect(await counted()).toEqual([3, 3]);
      await store.db.deleteFrom('token').where('serial', '=', 'T2').execute();
      await store.db.deleteFrom('token').where('serial', '=', 'NONE').execute();
      expect(await counted()).toEqual([2, 2]);
      // A writer whose transaction is still open neither blocks nor loses another writer's count.
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      let inserted!: () => void;
      const open = new Promise<void>((r) => {
        inserted = r;
      });
      const slow = store.db.transaction().execute(async (trx) => {
        await trx.insertInto('token').values(token('T4')).execute();
        inserted();
        await held;
      });
      await open;
      await store.db.insertInto('token').values(token('T5')).execute();
      expect(await counted()).toEqual([3, 3]);
      await expect(
        store.db.transaction().execute(async (trx) => {
          await trx.insertInto('token').values(token('T6')).execute();
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      release();
      await slow;
      expect(await counted()).toEqual([4, 4]);
      const rows = await sql<{ k: string }>`SELECT count(*) AS k FROM token_count`.execute(store.db);
      expect(Number(rows.rows[0]!.k)).toBeLessThanOrEqual(2);
    },
  );

  it('gives audit rows inserted without an id increasing generated ids, and keeps the duration', async () => {
    const store = await openDatabase(db.url, tmp);
    opened.push(store);
    await migrate(store);
    for (let i = 0; i < 5; i++)
      await store.db
        .insertInto('audit')
        .values(auditRow(`row ${i}`))
        .execute();
    const rows = await store.db
      .selectFrom('audit')
      .select(['id', 'info', 'duration'])
      .orderBy('id')
      .execute();
    const ids = rows.map((r) => r.id);
    for (const id of ids) expect(typeof id).toBe('number');
    expect(ids[0]).toBeGreaterThan(0);
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    expect(rows.map((r) => r.info)).toEqual(ids.map((_, i) => `row ${i}`));
    expect(rows[0]!.duration).toBeCloseTo(0.01);
  });

  it('opens a runtime: keys, schema, node record and key check', async () => {
    const dataDir = join(tmp, 'data');
    const rt = await open(dataDir);
    for (const f of ['encryption.key', 'signing.key', 'signing.pub', 'jwt.secret']) {
      expect(statSync(join(dataDir, f)).mode & 0o777, f).toBe(0o600);
    }
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    if (dialect === 'sqlite') expect(statSync(db.url.slice('sqlite:'.length)).mode & 0o777).toBe(0o600);
    expect(rt.store.dialect).toBe(dialect);
    expect(rt.node).toBe('test-node');
    const nodes = await rt.store.db.selectFrom('node').selectAll().execute();
    expect(nodes.map((n) => n.name)).toEqual(['test-node']);
    const check = await rt.store.db
      .selectFrom('meta')
      .select('value')
      .where('name', '=', 'key_check')
      .execute();
    expect(check).toHaveLength(1);
    expect(check[0]!.value).toMatch(/^aesgcm1:/);
    expect(rt.keys.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(dataDir, 'signing.pub'), 'utf8')).toBe(rt.keys.signer.publicKeyPem);
  });

  it('lets a second node with copies of the keys share the database', async () => {
    const a = join(tmp, 'a');
    const rtA = await open(a);
    // b was set up on its own first (keys of its own, signing.pub included); then the
    // administrator copies a's keys over, as config/README.md says, and b must start.
    const b = join(tmp, 'b');
    ensureDataDir(b);
    SecurityModule.load(b);
    loadServerKeys(b);
    expect(readFileSync(join(b, 'signing.pub'), 'utf8')).not.toBe(rtA.keys.signer.publicKeyPem);
    for (const f of ['encryption.key', 'signing.key', 'jwt.secret']) copyFileSync(join(a, f), join(b, f));
    const rtB = await open(b, { node_name: 'node-b' });
    expect(rtB.hsm.decrypt(rtA.hsm.encrypt('seed'))).toBe('seed');
    expect(rtB.keys.signer.publicKeyPem).toBe(rtA.keys.signer.publicKeyPem);
    expect(readFileSync(join(b, 'signing.pub'), 'utf8')).toBe(rtA.keys.signer.publicKeyPem);
    const nodes = await rtB.store.db.selectFrom('node').select('name').orderBy('name').execute();
    expect(nodes.map((n) => n.name)).toContain('node-b');
  });

  it('refuses to start with a different encryption.key on the same database', async () => {
    await open(join(tmp, 'a'));
    const err = await openRuntime(config(join(tmp, 'b')), { logger: silent }).then(
      (rt) => {
        opened.push(rt);
        return undefined;
      },
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain('encryption.key');
    expect(err!.message).toContain(join(tmp, 'b'));
  });

  it('checks a password-protected key when it is unlocked, not only at start', async () => {
    const a = join(tmp, 'a');
    await open(a);
    const b = join(tmp, 'b');
    // b has a key of its own, protected, so it starts locked and cannot be checked at start.
    ensureDataDir(b);
    SecurityModule.load(b).protect('password of b');
    const rtB = await open(b, { node_name: 'b' });
    expect(rtB.hsm.isReady()).toBe(false);
    expect(() => rtB.hsm.unlock('password of b')).toThrow(HsmError);
    expect(() => rtB.hsm.unlock('password of b')).toThrow(/encryption\.key/);
    expect(rtB.hsm.isReady()).toBe(false);

    // The same key as a, protected: unlocking succeeds.
    const c = join(tmp, 'c');
    ensureDataDir(c);
    copyFileSync(join(a, 'encryption.key'), join(c, 'encryption.key'));
    SecurityModule.load(c).protect('password of c');
    const rtC = await open(c, { node_name: 'c' });
    expect(rtC.hsm.isReady()).toBe(false);
    rtC.hsm.unlock('password of c');
    expect(rtC.hsm.isReady()).toBe(true);
  });

  it('unlocks a protected key at start from security.key_password_file', async () => {
    const dataDir = join(tmp, 'data');
    ensureDataDir(dataDir);
    const hsm = SecurityModule.load(dataDir);
    const sealed = hsm.encrypt('seed');
    hsm.protect('a long password');
    const pwFile = join(tmp, 'pw');
    writeFileSync(pwFile, 'a long password\n', { mode: 0o600 });
    const rt = await open(dataDir, { 'security.key_password_file': pwFile });
    expect(rt.hsm.isReady()).toBe(true);
    expect(rt.hsm.decrypt(sealed)).toBe('seed');

    writeFileSync(pwFile, 'the wrong password\n');
    await expect(openRuntime(config(dataDir, { 'security.key_password_file': pwFile }))).rejects.toThrow(
      /key_password_file/,
    );
    await expect(
      openRuntime(config(dataDir, { 'security.key_password_file': join(tmp, 'missing') })),
    ).rejects.toThrow(/key_password_file/);
  });
});

describe('data directory shared by processes starting together', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'authsrv-race-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('opens the same fresh SQLite data dir twice concurrently in one process', async () => {
    const dataDir = join(tmp, 'data');
    const config = loadConfig({ env: {}, overrides: { data_dir: dataDir, node_name: 'n' } });
    const [a, b] = await Promise.all([
      openRuntime(config, { logger: silent }),
      openRuntime(config, { logger: silent }),
    ]);
    try {
      expect(a.keys.signer.publicKeyPem).toBe(b.keys.signer.publicKeyPem);
      expect(Buffer.from(a.keys.jwtSecret).equals(Buffer.from(b.keys.jwtSecret))).toBe(true);
      expect(b.hsm.decrypt(a.hsm.encrypt('seed'))).toBe('seed');
      expect(await migrate(a.store)).toEqual([]);
      expect(await a.store.db.selectFrom('node').select('name').execute()).toEqual([{ name: 'n' }]);
    } finally {
      await a.store.close();
      await b.store.close();
    }
  });

  it('opens the same fresh SQLite data dir from several processes at once (server and CLI)', async () => {
    const dataDir = join(tmp, 'data');
    // Each process opens the runtime and prints what the others must agree with.
    const script = `
      import { loadConfig } from ${JSON.stringify(join(ROOT, 'src/config/load.ts'))};
      import { openRuntime } from ${JSON.stringify(join(ROOT, 'src/core/runtime.ts'))};
      import pino from 'pino';
      const config = loadConfig({ env: {}, overrides: { data_dir: ${JSON.stringify(dataDir)}, node_name: 'n' } });
      const rt = await openRuntime(config, { logger: pino({ level: 'silent' }) });
      const sealed = rt.hsm.encrypt('seed');
      console.log(JSON.stringify({ pub: rt.keys.signer.publicKeyPem, jwt: Buffer.from(rt.keys.jwtSecret).toString('hex'), sealed }));
      await rt.store.close();
    `;
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => {
          out += d;
        });
        child.stderr.on('data', (d) => {
          err += d;
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out, err }));
      });
    const results = await Promise.all([run(), run(), run(), run()]);
    for (const r of results) expect(r.err, r.err).toBe('');
    for (const r of results) expect(r.code).toBe(0);
    const parsed = results.map((r) => JSON.parse(r.out) as { pub: string; jwt: string; sealed: string });
    for (const p of parsed) {
      expect(p.pub).toBe(parsed[0]!.pub);
      expect(p.jwt).toBe(parsed[0]!.jwt);
    }
    const hsm = SecurityModule.load(dataDir);
    for (const p of parsed) expect(hsm.decrypt(p.sealed)).toBe('seed');
    const leftovers = readdirSync(dataDir).filter((f) => f.endsWith('.tmp'));
    expect(leftovers).toEqual([]);
  }, 60_000);
});

describe('authsrv db upgrade', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'authsrv-cli-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('applies the migrations of a fresh data dir, then finds it up to date', async () => {
    const dataDir = join(tmp, 'data');
    const first = await cli(['--data-dir', dataDir, 'db', 'upgrade']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Applied: ${ALL_MIGRATIONS.join(', ')}`);
    expect(statSync(join(dataDir, 'authsrv.db')).mode & 0o777).toBe(0o600);
    const second = await cli(['--data-dir', dataDir, 'db', 'upgrade']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('up to date');
    expect(second.stdout).not.toContain('Applied');
  });

  for (const dialect of testDialects().filter((d) => d !== 'sqlite')) {
    it(`works on ${dialect} through AUTHSRV_DATABASE_URL`, async () => {
      const db = await createTestDatabase(dialect);
      try {
        const env = { AUTHSRV_DATABASE_URL: db.url };
        const first = await cli(['--data-dir', join(tmp, 'data'), 'db', 'upgrade'], env);
        expect(first.stderr).toBe('');
        expect(first.stdout).toContain(`Applied: ${ALL_MIGRATIONS.join(', ')}`);
        const second = await cli(['--data-dir', join(tmp, 'data'), 'db', 'upgrade'], env);
        expect(second.stdout).toContain('up to date');
      } finally {
        await db.drop();
      }
    });
  }

  it('reports a bad configuration in one line and exits non-zero', async () => {
    const r = await cli(['--data-dir', join(tmp, 'data'), 'db', 'upgrade'], { AUTHSRV_HTTP_PORT: 'x' });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('http.port');
  });
});

describe('openDatabase', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'authsrv-open-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('takes a relative sqlite: path from the base directory and accepts the other forms', async () => {
    for (const [url, file] of [
      ['sqlite:rel.db', join(tmp, 'rel.db')],
      [`sqlite:${join(tmp, 'abs.db')}`, join(tmp, 'abs.db')],
      [`sqlite://${join(tmp, 'slashes.db')}`, join(tmp, 'slashes.db')],
    ] as const) {
      const store = await openDatabase(url, tmp);
      try {
        expect(await migrate(store)).toEqual(ALL_MIGRATIONS);
      } finally {
        await store.close();
      }
      expect(statSync(file).mode & 0o777, url).toBe(0o600);
    }
    const memory = await openDatabase('sqlite::memory:', tmp);
    try {
      expect(await migrate(memory)).toEqual(ALL_MIGRATIONS);
    } finally {
      await memory.close();
    }
  });

  it('rejects unusable URLs with a clear error', async () => {
    await expect(openDatabase('sqlite:', tmp)).rejects.toThrow(/names no SQLite file/);
    await expect(openDatabase(`sqlite:${join(tmp, 'no/such/dir/a.db')}`, tmp)).rejects.toThrow(
      /no such directory/,
    );
    await expect(openDatabase('oracle://scott:tiger@db/orcl', tmp)).rejects.toThrow(/oracle:/);
    await expect(openDatabase('oracle://scott:tiger@db/orcl', tmp)).rejects.not.toThrow(/tiger/);
  });
});
