// Versioned schema migrations, in code so the single binary carries them. Never edit a migration
// that has shipped; add a new one.
import { type Kysely, sql } from 'kysely';
import type { Migration, MigrationProvider } from 'kysely/migration';
import type { Dialect } from './dialect.ts';

type Build = (db: Kysely<unknown>, dialect: Dialect) => Promise<void>;

/** An auto-increment integer primary key on every dialect. */
function idType(dialect: Dialect) {
  return dialect === 'postgres' ? sql`bigserial` : sql`integer`;
}

/**
 * A new table; on MySQL/MariaDB with a binary utf8mb4 collation, so that keys and names compare
 * case-sensitively and exactly, as on the other dialects, whatever the server's default.
 */
function createTable(db: Kysely<unknown>, dialect: Dialect, name: string) {
  const t = db.schema.createTable(name);
  return dialect === 'mysql' ? t.modifyEnd(sql`character set utf8mb4 collate utf8mb4_bin`) : t;
}

const MIGRATIONS: Record<string, { up: Build }> = {
  '0001_base': {
    async up(db, dialect) {
      await createTable(db, dialect, 'admin')
        .addColumn('name', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await createTable(db, dialect, 'config')
        .addColumn('name', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('type', 'varchar(32)', (c) => c.notNull())
        .addColumn('description', 'varchar(2000)', (c) => c.notNull())
        .execute();
      await createTable(db, dialect, 'meta')
        .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();
      await createTable(db, dialect, 'node')
        .addColumn('name', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('uuid', 'varchar(36)', (c) => c.notNull())
        .addColumn('last_seen', 'varchar(32)', (c) => c.notNull())
        .execute();
      const v = (n: number) => `varchar(${n})` as const;
      await createTable(db, dialect, 'audit')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('date', v(32), (c) => c.notNull())
        .addColumn('startdate', v(32), (c) => c.notNull())
        .addColumn('duration', 'double precision', (c) => c.notNull())
        .addColumn('action', v(100), (c) => c.notNull())
        .addColumn('success', 'integer', (c) => c.notNull())
        .addColumn('authentication', v(20), (c) => c.notNull())
        .addColumn('serial', v(40), (c) => c.notNull())
        .addColumn('token_type', v(30), (c) => c.notNull())
        .addColumn('container_serial', v(40), (c) => c.notNull())
        .addColumn('container_type', v(100), (c) => c.notNull())
        .addColumn('user', v(255), (c) => c.notNull())
        .addColumn('realm', v(255), (c) => c.notNull())
        .addColumn('resolver', v(255), (c) => c.notNull())
        .addColumn('administrator', v(255), (c) => c.notNull())
        .addColumn('action_detail', v(255), (c) => c.notNull())
        .addColumn('info', v(1000), (c) => c.notNull())
        .addColumn('node', v(255), (c) => c.notNull())
        .addColumn('policies', v(1000), (c) => c.notNull())
        .addColumn('client', v(50), (c) => c.notNull())
        .addColumn('user_agent', v(255), (c) => c.notNull())
        .addColumn('user_agent_version', v(50), (c) => c.notNull())
        .addColumn('log_level', v(20), (c) => c.notNull())
        .addColumn('clearance_level', v(20), (c) => c.notNull())
        .addColumn('thread_id', v(20), (c) => c.notNull())
        .addColumn('signature', v(1100), (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_date').on('audit').column('date').execute();
      await db.schema.createIndex('audit_user_realm').on('audit').columns(['user', 'realm']).execute();
      await db.schema.createIndex('audit_serial').on('audit').column('serial').execute();
    },
  },
  '0002_user_stores': {
    async up(db, dialect) {
      const id = (t: ReturnType<typeof createTable>) =>
        t.addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        );
      await id(createTable(db, dialect, 'resolver'))
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('type', 'varchar(64)', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await id(createTable(db, dialect, 'realm'))
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('is_default', 'integer', (c) => c.notNull())
        .execute();
      await createTable(db, dialect, 'realm_resolver')
        .addColumn('realm_id', 'integer', (c) => c.notNull())
        .addColumn('resolver_id', 'integer', (c) => c.notNull())
        .addColumn('priority', 'integer')
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('node', 'varchar(255)', (c) => c.notNull())
        .addPrimaryKeyConstraint('realm_resolver_pk', ['realm_id', 'resolver_id', 'node'])
        .execute();
      await createTable(db, dialect, 'user_attribute')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('userid', 'varchar(320)', (c) => c.notNull())
        .addColumn('resolver', 'varchar(255)', (c) => c.notNull())
        .addColumn('realm', 'varchar(255)', (c) => c.notNull())
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('type', 'varchar(64)', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('user_attribute_user')
        .on('user_attribute')
        .columns(['resolver', 'userid'])
        .execute();
    },
  },
  // Policies (reference 5.1). The list attributes (realm, resolver, user, adminrealm, adminuser,
  // client, servicenode, user_agents) are JSON arrays of strings, `action` is the JSON object of the
  // parsed action dict (name → true | "value") and `conditions` a JSON list of 5- or 6-item lists:
  // JSON keeps entries that contain commas (regexes such as `a{1,3}`) intact. Booleans are 0/1.
  '0003_policies': {
    async up(db, dialect) {
      await createTable(db, dialect, 'policy')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('scope', 'varchar(64)', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('realm', 'text', (c) => c.notNull())
        .addColumn('adminrealm', 'text', (c) => c.notNull())
        .addColumn('adminuser', 'text', (c) => c.notNull())
        .addColumn('resolver', 'text', (c) => c.notNull())
        .addColumn('user', 'text', (c) => c.notNull())
        .addColumn('client', 'text', (c) => c.notNull())
        .addColumn('time', 'text', (c) => c.notNull())
        .addColumn('priority', 'integer', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('check_all_resolvers', 'integer', (c) => c.notNull())
        .addColumn('servicenode', 'text', (c) => c.notNull())
        .addColumn('user_agents', 'text', (c) => c.notNull())
        .addColumn('user_case_insensitive', 'integer', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('conditions', 'text', (c) => c.notNull())
        .execute();
    },
  },
  // The policy change counter exists from the start, so that every write only updates it (under
  // a row lock): two nodes writing at once can neither lose an increment nor race on its insert.
  '0004_policy_version': {
    async up(db) {
      const k = db as Kysely<{ meta: { name: string; value: string } }>;
      const row = await k
        .selectFrom('meta')
        .select('name')
        .where('name', '=', 'policy_version')
        .executeTakeFirst();
      if (!row) await k.insertInto('meta').values({ name: 'policy_version', value: '0' }).execute();
    },
  },
  // Tokens (reference 3): the token row, its tokeninfo, realms and owner, and challenges. Seeds are
  // sealed by the security module (key_enc); PINs are argon2id hashes (pin_hash, '' = no PIN).
  '0005_tokens': {
    async up(db, dialect) {
      const id = (t: ReturnType<typeof createTable>) =>
        t.addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        );
      await id(createTable(db, dialect, 'token'))
        .addColumn('serial', 'varchar(40)', (c) => c.notNull().unique())
        .addColumn('tokentype', 'varchar(30)', (c) => c.notNull())
        .addColumn('description', 'varchar(80)', (c) => c.notNull())
        .addColumn('otplen', 'integer', (c) => c.notNull())
        .addColumn('maxfail', 'integer', (c) => c.notNull())
        .addColumn('failcount', 'integer', (c) => c.notNull())
        .addColumn('count', 'bigint', (c) => c.notNull())
        .addColumn('count_window', 'integer', (c) => c.notNull())
        .addColumn('sync_window', 'integer', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('revoked', 'integer', (c) => c.notNull())
        .addColumn('locked', 'integer', (c) => c.notNull())
        .addColumn('rollout_state', 'varchar(10)', (c) => c.notNull())
        .addColumn('key_enc', 'text', (c) => c.notNull())
        .addColumn('pin_hash', 'text', (c) => c.notNull())
        .execute();
      await id(createTable(db, dialect, 'tokeninfo'))
        .addColumn('token_id', 'integer', (c) => c.notNull())
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('type', 'varchar(100)', (c) => c.notNull())
        .addUniqueConstraint('tokeninfo_token_key', ['token_id', 'key'])
        .execute();
      await createTable(db, dialect, 'tokenrealm')
        .addColumn('token_id', 'integer', (c) => c.notNull())
        .addColumn('realm_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('tokenrealm_pk', ['token_id', 'realm_id'])
        .execute();
      await createTable(db, dialect, 'tokenowner')
        .addColumn('token_id', 'integer', (c) => c.notNull().primaryKey())
        .addColumn('resolver', 'varchar(255)', (c) => c.notNull())
        .addColumn('user_id', 'varchar(320)', (c) => c.notNull())
        .addColumn('realm_id', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('tokenowner_user')
        .on('tokenowner')
        .columns(['resolver', 'user_id'])
        .execute();
      await id(createTable(db, dialect, 'challenge'))
        .addColumn('transaction_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('serial', 'varchar(40)', (c) => c.notNull())
        .addColumn('challenge', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('session', 'text', (c) => c.notNull())
        .addColumn('timestamp', 'varchar(32)', (c) => c.notNull())
        .addColumn('expiration', 'varchar(32)', (c) => c.notNull())
        .addColumn('received_count', 'integer', (c) => c.notNull())
        .addColumn('otp_valid', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('challenge_transaction').on('challenge').column('transaction_id').execute();
      await db.schema.createIndex('challenge_serial').on('challenge').column('serial').execute();
    },
  },
  '0006_clients': {
    async up(db, dialect) {
      // One row per client address, user-agent name and node: /validate/check updates lastseen.
      await createTable(db, dialect, 'clients')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('ip', 'varchar(64)', (c) => c.notNull())
        .addColumn('hostname', 'varchar(255)', (c) => c.notNull())
        .addColumn('clienttype', 'varchar(255)', (c) => c.notNull())
        .addColumn('user_agent', 'varchar(1000)', (c) => c.notNull())
        .addColumn('node', 'varchar(255)', (c) => c.notNull())
        .addColumn('lastseen', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('clients_ip_type_node', ['ip', 'clienttype', 'node'])
        .execute();
    },
  },
  '0007_tokengroups': {
    async up(db, dialect) {
      // Named groups of tokens (reference 3.4 `tokengroup`, 6.5); a token is in any number of them.
      await createTable(db, dialect, 'tokengroup')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('description', 'varchar(2000)', (c) => c.notNull())
        .execute();
      await createTable(db, dialect, 'tokengroup_token')
        .addColumn('tokengroup_id', 'integer', (c) => c.notNull())
        .addColumn('token_id', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('tokengroup_token_pk', ['tokengroup_id', 'token_id'])
        .execute();
      await db.schema
        .createIndex('tokengroup_token_token')
        .on('tokengroup_token')
        .column('token_id')
        .execute();
    },
  },
  // The admin listings (issue 6). Audit rows of a user newest first come straight from an index on
  // (user, id) (it replaces (user, realm), which needed every row of the user sorted); the token
  // listing's realm filters and realm-restricted administrators find their tokens by realm.
  // PostgreSQL counts 100 000 tokens in tens of milliseconds, on every page of GET /token/, so
  // there the number of tokens is kept in `token_count` by statement triggers: each statement that
  // inserts or deletes tokens folds every row of token_count it can lock (SKIP LOCKED: those of
  // concurrent, uncommitted writers stay for later) plus its own delta into one new row; the sum of
  // the committed rows is the number of committed tokens (under READ COMMITTED, which every
  // transaction of authsrv uses). SQLite counts an index in microseconds; MariaDB keeps count(*).
  '0008_listing_speed': {
    async up(db, dialect) {
      await db.schema.createIndex('audit_user_id').on('audit').columns(['user', 'id']).execute();
      const drop = db.schema.dropIndex('audit_user_realm');
      await (dialect === 'mysql' ? drop.on('audit') : drop).execute();
      await db.schema
        .createIndex('tokenrealm_realm')
        .on('tokenrealm')
        .columns(['realm_id', 'token_id'])
        .execute();
      await db.schema.createIndex('tokenowner_realm').on('tokenowner').column('realm_id').execute();
      if (dialect !== 'postgres') return;
      await sql`CREATE TABLE token_count (n bigint NOT NULL)`.execute(db);
      for (const [op, rows, sign] of [
        ['insert', 'NEW', ''],
        ['delete', 'OLD', '-'],
      ] as const) {
        await sql
          .raw(
            `CREATE FUNCTION token_count_${op}() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE delta bigint;
            BEGIN
              SELECT ${sign}count(*) INTO delta FROM changed_tokens;
              IF delta <> 0 THEN
                WITH folded AS (
                  DELETE FROM token_count
                  WHERE ctid IN (SELECT ctid FROM token_count FOR UPDATE SKIP LOCKED)
                  RETURNING n
                )
                INSERT INTO token_count (n) SELECT delta + coalesce(sum(n), 0) FROM folded;
              END IF;
              RETURN NULL;
            END $$`,
          )
          .execute(db);
        await sql
          .raw(
            `CREATE TRIGGER token_count_${op} AFTER ${op.toUpperCase()} ON token
            REFERENCING ${rows} TABLE AS changed_tokens
            FOR EACH STATEMENT EXECUTE FUNCTION token_count_${op}()`,
          )
          .execute(db);
      }
      // After the triggers: they lock the table against writers until this migration commits.
      await sql`INSERT INTO token_count (n) SELECT count(*) FROM token`.execute(db);
    },
  },
  // Sessions end when the administrator does (issue 16): a JWT is refused when it was issued before
  // its local administrator's last creation, password change or logout, or before the revocation
  // of its realm user. Administrators of an older database keep their sessions (the epoch).
  '0009_sessions': {
    async up(db, dialect) {
      await db.schema
        .alterTable('admin')
        .addColumn('sessions_valid_after', 'varchar(32)', (c) =>
          c.notNull().defaultTo('1970-01-01T00:00:00.000Z'),
        )
        .execute();
      await createTable(db, dialect, 'session_revocation')
        .addColumn('realm', 'varchar(255)', (c) => c.notNull())
        .addColumn('username', 'varchar(255)', (c) => c.notNull())
        .addColumn('valid_after', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('session_revocation_pk', ['realm', 'username'])
        .execute();
    },
  },
  // Brute-force throttling (issue 16): the failed logins of an account from one client address and
  // of a client address over all accounts, shared by every node. The key is a hash of the kind,
  // the account and the address, so that it has a fixed length whatever the names.
  '0010_login_failure': {
    async up(db, dialect) {
      await createTable(db, dialect, 'login_failure')
        .addColumn('key', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('kind', 'varchar(16)', (c) => c.notNull())
        .addColumn('account', 'varchar(255)', (c) => c.notNull())
        .addColumn('address', 'varchar(64)', (c) => c.notNull())
        .addColumn('failures', 'integer', (c) => c.notNull())
        .addColumn('last_failure', 'varchar(32)', (c) => c.notNull())
        .addColumn('blocked_until', 'varchar(32)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('login_failure_address').on('login_failure').column('address').execute();
      await db.schema.createIndex('login_failure_account').on('login_failure').column('account').execute();
    },
  },
  // Machines (issue 18): service IDs (/serviceid/, reference 6.5) and machine resolvers
  // (/machineresolver/, reference 6.4), whose settings are one JSON document as a resolver's.
  '0011_machines': {
    async up(db, dialect) {
      const id = (t: ReturnType<typeof createTable>) =>
        t.addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        );
      await id(createTable(db, dialect, 'serviceid'))
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('description', 'varchar(2000)', (c) => c.notNull())
        .execute();
      await id(createTable(db, dialect, 'machineresolver'))
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('type', 'varchar(64)', (c) => c.notNull())
        .addColumn('config', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  },
  '0012_machine_tokens': {
    async up(db, dialect) {
      const id = (t: ReturnType<typeof createTable>) =>
        t.addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        );
      // A token attached to a machine (machine_id of machineresolver_id) for an application; both
      // null: attached to any machine (ssh, offline).
      await id(createTable(db, dialect, 'machinetoken'))
        .addColumn('token_id', 'integer', (c) => c.notNull())
        .addColumn('machineresolver_id', 'integer')
        .addColumn('machine_id', 'varchar(255)')
        .addColumn('application', 'varchar(64)', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('machinetoken_token').on('machinetoken').column('token_id').execute();
      await db.schema
        .createIndex('machinetoken_machine')
        .on('machinetoken')
        .columns(['machineresolver_id', 'machine_id'])
        .execute();
      await id(createTable(db, dialect, 'machinetoken_option'))
        .addColumn('machinetoken_id', 'integer', (c) => c.notNull())
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('value', 'varchar(2000)', (c) => c.notNull())
        .addUniqueConstraint('machinetoken_option_key', ['machinetoken_id', 'key'])
        .execute();
    },
  },
  // A token is attached to one machine once per application, also when two requests attach it at
  // the same moment: a unique index behind the check of attachToken. Attachments to no machine
  // (machineresolver_id and machine_id null) stay repeatable, as they must (ssh: one per service
  // ID, told apart by their options): every dialect counts NULLs in a unique index as distinct.
  // Duplicates that concurrent attaches left before are removed first, the earliest kept.
  '0013_machinetoken_unique': {
    async up(db) {
      type Mt = {
        id: number;
        token_id: number;
        machineresolver_id: number | null;
        machine_id: string | null;
        application: string;
      };
      const k = db as Kysely<{ machinetoken: Mt; machinetoken_option: { machinetoken_id: number } }>;
      const later = await k
        .selectFrom('machinetoken as m')
        .select('m.id')
        .where('m.machine_id', 'is not', null)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('machinetoken as o')
              .select('o.id')
              .whereRef('o.token_id', '=', 'm.token_id')
              .whereRef('o.application', '=', 'm.application')
              .whereRef('o.machineresolver_id', '=', 'm.machineresolver_id')
              .whereRef('o.machine_id', '=', 'm.machine_id')
              .whereRef('o.id', '<', 'm.id'),
          ),
        )
        .execute();
      // Selected first, deleted by id: MariaDB deletes from no table its own subquery reads.
      const ids = later.map((r) => r.id);
      if (ids.length > 0) {
        await k.deleteFrom('machinetoken_option').where('machinetoken_id', 'in', ids).execute();
        await k.deleteFrom('machinetoken').where('id', 'in', ids).execute();
      }
      await db.schema
        .createIndex('machinetoken_unique')
        .on('machinetoken')
        .columns(['token_id', 'application', 'machineresolver_id', 'machine_id'])
        .unique()
        .execute();
    },
  },
  // SMTP server definitions (issue 19, reference 8.3): the password sealed, the rest in clear.
  '0014_smtpservers': {
    async up(db, dialect) {
      await createTable(db, dialect, 'smtpserver')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('identifier', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('server', 'varchar(255)', (c) => c.notNull())
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('username', 'varchar(255)', (c) => c.notNull())
        .addColumn('password', 'text', (c) => c.notNull())
        .addColumn('sender', 'varchar(255)', (c) => c.notNull())
        .addColumn('tls', 'integer', (c) => c.notNull())
        .addColumn('timeout', 'integer', (c) => c.notNull())
        .addColumn('description', 'varchar(2000)', (c) => c.notNull())
        .addColumn('cacertificate', 'text', (c) => c.notNull())
        .execute();
    },
  },
  // SMS gateways (issue 19, /smsgateway/, reference 8.2): a named provider module with its options
  // and headers, one row each; `sealed` marks a value encrypted by the security module (keys
  // holding PASSWORD or SECRET).
  '0015_smsgateways': {
    async up(db, dialect) {
      const id = (t: ReturnType<typeof createTable>) =>
        t.addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        );
      await id(createTable(db, dialect, 'smsgateway'))
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('providermodule', 'varchar(255)', (c) => c.notNull())
        .addColumn('description', 'varchar(2000)', (c) => c.notNull())
        .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
        .execute();
      await id(createTable(db, dialect, 'smsgateway_option'))
        .addColumn('gateway_id', 'integer', (c) => c.notNull())
        .addColumn('type', 'varchar(16)', (c) => c.notNull())
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('sealed', 'integer', (c) => c.notNull())
        .addUniqueConstraint('smsgateway_option_key', ['gateway_id', 'type', 'key'])
        .execute();
    },
  },
  // RADIUS server definitions (issue 19, /radiusserver/, reference 8.4); the secret sealed by the
  // security module.
  '0016_radiusservers': {
    async up(db, dialect) {
      await createTable(db, dialect, 'radiusserver')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('identifier', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('server', 'varchar(255)', (c) => c.notNull())
        .addColumn('port', 'integer', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('description', 'varchar(2000)', (c) => c.notNull())
        .addColumn('timeout', 'integer', (c) => c.notNull())
        .addColumn('retries', 'integer', (c) => c.notNull())
        .execute();
    },
  },
  // Event handling definitions (issue 20, /event/, reference 7.1): the events a definition listens
  // to (comma list), its handler module and action, its position and ordering, its conditions and
  // options (JSON objects); and the named counters the Counter handler module moves.
  '0017_events': {
    async up(db, dialect) {
      await createTable(db, dialect, 'eventhandler')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('handlermodule', 'varchar(255)', (c) => c.notNull())
        .addColumn('action', 'varchar(255)', (c) => c.notNull())
        .addColumn('ordering', 'integer', (c) => c.notNull())
        .addColumn('position', 'varchar(8)', (c) => c.notNull())
        .addColumn('conditions', 'text', (c) => c.notNull())
        .addColumn('options', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .execute();
      await createTable(db, dialect, 'eventcounter')
        .addColumn('name', 'varchar(255)', (c) => c.primaryKey())
        .addColumn('value', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  // Periodic tasks (issue 20, /periodictask/, reference 7.2): the definition, its options, and
  // one row per (task, node) holding the node's last run and whether a run is under way; the
  // scheduler claims a run by updating that row guarded by its previous value.
  '0018_periodictasks': {
    async up(db, dialect) {
      const id = (t: ReturnType<typeof createTable>) =>
        t.addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        );
      await id(createTable(db, dialect, 'periodictask'))
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('retry_if_failed', 'integer', (c) => c.notNull())
        .addColumn('interval', 'varchar(255)', (c) => c.notNull())
        .addColumn('nodes', 'varchar(2000)', (c) => c.notNull())
        .addColumn('taskmodule', 'varchar(255)', (c) => c.notNull())
        .addColumn('ordering', 'integer', (c) => c.notNull())
        .addColumn('last_update', 'varchar(32)', (c) => c.notNull())
        .execute();
      await id(createTable(db, dialect, 'periodictask_option'))
        .addColumn('task_id', 'integer', (c) => c.notNull())
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addUniqueConstraint('periodictask_option_key', ['task_id', 'key'])
        .execute();
      await id(createTable(db, dialect, 'periodictask_lastrun'))
        .addColumn('task_id', 'integer', (c) => c.notNull())
        .addColumn('node', 'varchar(255)', (c) => c.notNull())
        .addColumn('timestamp', 'varchar(32)', (c) => c.notNull())
        .addColumn('running_since', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('periodictask_lastrun_node', ['task_id', 'node'])
        .execute();
    },
  },
  // Monitoring (issue 20, /monitoring/, reference 7.3): the time series of the stats keys that
  // the EventCounter and SimpleStats task modules write. The timestamp is UTC, a native column with
  // microseconds where the dialect has one (PostgreSQL timestamp(6), MariaDB datetime(6)), so
  // that dashboards can query the table directly; SQLite keeps the same text,
  // `YYYY-MM-DD HH:MM:SS.ffffff`, ordered as text.
  '0019_monitoring': {
    async up(db, dialect) {
      const timestamp = { postgres: sql`timestamp(6)`, mysql: sql`datetime(6)`, sqlite: sql`varchar(26)` }[
        dialect
      ];
      await createTable(db, dialect, 'monitoringstats')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('stats_key', 'varchar(255)', (c) => c.notNull())
        .addColumn('timestamp', timestamp, (c) => c.notNull())
        .addColumn('stats_value', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('monitoringstats_key_timestamp')
        .on('monitoringstats')
        .columns(['stats_key', 'timestamp'])
        .execute();
    },
  },
  // GnuPG private keys that decrypt PGP-encrypted token files (issue 21, /token/load): the key id,
  // fingerprint and user ids in clear, the public key's ASCII armor, and the private key (its
  // passphrase removed) sealed by the security module.
  '0021_gpgkeys': {
    async up(db, dialect) {
      await createTable(db, dialect, 'gpgkey')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('keyid', 'varchar(16)', (c) => c.notNull().unique())
        .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
        .addColumn('userids', 'varchar(2000)', (c) => c.notNull())
        .addColumn('public_armor', 'text', (c) => c.notNull())
        .addColumn('private_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
        .execute();
    },
  },
  // CA connectors (issue 21, /caconnector/, reference 8.5; numbered after 0021, which landed first): the connector and its configuration
  // (privacyIDEA's caconnector and caconnectorconfig; password-typed values sealed), and the
  // certificates each connector revoked, from which its CRL is made.
  '0022_caconnector': {
    async up(db, dialect) {
      const id = (t: ReturnType<typeof createTable>) =>
        t.addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        );
      await id(createTable(db, dialect, 'caconnector'))
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('catype', 'varchar(255)', (c) => c.notNull())
        .execute();
      await id(createTable(db, dialect, 'caconnectorconfig'))
        .addColumn('caconnector_id', 'integer', (c) => c.notNull())
        .addColumn('key', 'varchar(255)', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('sealed', 'integer', (c) => c.notNull())
        .addUniqueConstraint('caconnectorconfig_key', ['caconnector_id', 'key'])
        .execute();
      await id(createTable(db, dialect, 'carevoked'))
        .addColumn('caconnector_id', 'integer', (c) => c.notNull())
        .addColumn('serial', 'varchar(64)', (c) => c.notNull())
        .addColumn('revoked_at', 'varchar(32)', (c) => c.notNull())
        .addUniqueConstraint('carevoked_serial', ['caconnector_id', 'serial'])
        .execute();
    },
  },
  // RADIUS clients of authsrv's own RADIUS server (issue 22): the NAS devices allowed to ask, by
  // name and address or subnet (CIDR), with their shared secret sealed by the security module and
  // whether their requests must carry Message-Authenticator (BlastRADIUS).
  '0023_radiusclients': {
    async up(db, dialect) {
      await createTable(db, dialect, 'radiusclient')
        .addColumn('id', idType(dialect), (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
        .addColumn('address', 'varchar(64)', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('require_message_authenticator', 'integer', (c) => c.notNull())
        .addColumn('description', 'varchar(2000)', (c) => c.notNull())
        .execute();
    },
  },
  // Administrators imported from privacyIDEA (issue 23): their hash is of PI_PEPPER + password, so
  // the row keeps that pepper, sealed by the security module, until the first login re-hashes the
  // password with authsrv's own scheme and clears it. NULL for every hash authsrv made.
  '0024_admin_pepper': {
    async up(db) {
      await db.schema.alterTable('admin').addColumn('password_pepper', 'text').execute();
    },
  },
  // Audit rows imported from privacyIDEA (issue 23, `authsrv import privacyidea --with-audit`):
  // where a row came from, its number there and the result of checking its signature there. Empty
  // for authsrv's own rows, whose signed text does not include them (src/core/audit/signature.ts).
  '0025_audit_import': {
    async up(db) {
      for (const [column, length] of [
        ['imported_from', 32],
        ['imported_number', 20],
        ['imported_check', 20],
      ] as const) {
        await db.schema
          .alterTable('audit')
          .addColumn(column, sql.raw(`varchar(${length})`), (c) => c.notNull().defaultTo(''))
          .execute();
      }
    },
  },
};

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(MIGRATIONS)) out[name] = { up: (db) => m.up(db, dialect) };
      return out;
    },
  };
}

export const LATEST_MIGRATION = Object.keys(MIGRATIONS).at(-1)!;
