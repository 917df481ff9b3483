import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import BetterSqlite3 from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashesStarted } from '../../../src/crypto/hash-slots.ts';
import { hashPassword } from '../../../src/crypto/password-hash.ts';
import { ParameterError, ResolverError, UserError } from '../../../src/errors.ts';
import { sqlResolver } from '../../../src/resolvers/sql/index.ts';
import { parseWhere } from '../../../src/resolvers/sql/where.ts';
import type { ResolverSettings, StoreEnvironment, UserStore } from '../../../src/resolvers/user-store.ts';
import {
  createTestDatabase,
  type DialectName,
  type TestDatabase,
  testDialects,
} from '../../helpers/dialects.ts';
import { allowedFilesIn } from '../../helpers/user-stores.ts';

// The SQLite databases of the tests are in temporary directories.
const files = allowedFilesIn(tmpdir());
const env: StoreEnvironment = { log: pino({ level: 'silent' }), clock: () => new Date(), files };

type Statement = [text: string, params?: unknown[]];

/** Runs statements with `?` placeholders on the test database, outside the code under test. */
async function execute(dialect: DialectName, url: string, statements: Statement[]): Promise<unknown[][]> {
  const results: unknown[][] = [];
  if (dialect === 'sqlite') {
    const db = new BetterSqlite3(url.slice('sqlite:'.length));
    try {
      for (const [text, params = []] of statements) {
        const st = db.prepare(text);
        if (st.reader) {
          results.push(st.all(...params) as unknown[]);
        } else {
          st.run(...params);
          results.push([]);
        }
      }
    } finally {
      db.close();
    }
    return results;
  }
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      for (const [text, params = []] of statements) {
        let n = 0;
        results.push(
          (
            await c.query(
              text.replace(/\?/g, () => `$${++n}`),
              params,
            )
          ).rows,
        );
      }
    } finally {
      await c.end();
    }
    return results;
  }
  const c = await createConnection(url);
  try {
    for (const [text, params = []] of statements) {
      const [rows] = await c.query(text, params);
      results.push(Array.isArray(rows) ? rows : []);
    }
  } finally {
    await c.end();
  }
  return results;
}

function connectionSettings(dialect: DialectName, url: string): ResolverSettings {
  if (dialect === 'sqlite') return { Driver: 'sqlite', Database: url.slice('sqlite:'.length) };
  const u = new URL(url);
  return {
    // privacyIDEA's SQLAlchemy driver names
    Driver: dialect === 'postgres' ? 'postgresql+psycopg2' : 'mysql+pymysql',
    Server: u.hostname,
    Port: u.port,
    User: decodeURIComponent(u.username),
    Password: decodeURIComponent(u.password),
    Database: u.pathname.slice(1),
  };
}

const AUTO_ID: Record<DialectName, string> = {
  sqlite: 'INTEGER PRIMARY KEY',
  postgres: 'SERIAL PRIMARY KEY',
  mysql: 'INT AUTO_INCREMENT PRIMARY KEY',
};

function userTable(dialect: DialectName, name: string): string {
  return `CREATE TABLE ${name} (
    id ${AUTO_ID[dialect]},
    login VARCHAR(64) NOT NULL,
    pw VARCHAR(255),
    first_name VARCHAR(64),
    last_name VARCHAR(64),
    mail VARCHAR(128),
    tel VARCHAR(32),
    mob VARCHAR(32),
    note VARCHAR(255),
    active INTEGER NOT NULL DEFAULT 1,
    dept VARCHAR(32)
  )`;
}

const MAP = JSON.stringify({
  userid: 'id',
  username: 'login',
  password: 'pw',
  givenname: 'first_name',
  surname: 'last_name',
  email: 'mail',
  phone: 'tel',
  mobile: 'mob',
  description: 'note',
  department: 'dept',
});

// Hashes made by other tools (glibc/libxcrypt, slappasswd, phpass), one user per stored format.
const USERS: [
  id: number,
  login: string,
  hash: string | null,
  password: string,
  active: number,
  dept: string | null,
][] = [
  [
    1,
    'alice',
    '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
    'Hello world!',
    1,
    'sales',
  ],
  [2, 'bob', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5', 'Hello world!', 1, 'sales'],
  [3, 'carol', '$2b$04$abcdefghijklmnopqrstuuyx2n0Zzopyr9QuYTMCfOJJOj526QVoC', 'pässwörd', 1, 'it'],
  [4, 'dave', '{SSHA}Woq642AcpYBkRUSo2rJa7qRsad/tXh1w', 'secret', 1, 'it'],
  [5, 'erin', '{SSHA256}cLtAtzwujZ8Zt13f5peIw9HTi/7fi0FV/wFFDWQhCySt9/nErab8YQ==', 'secret', 1, 'it'],
  [
    6,
    'frank',
    '{SSHA512}NOl6H9A72vPqxcBkapyLxcNGMMIn9ycF8eUhLcr8EWwpEkDSfL2aXWDGy9zOJmpuB+QokJwrApVYRRvl0ttc6omVb3wBoTjt',
    'secret',
    1,
    null,
  ],
  [7, 'grace', '{SHA256}K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=', 'secret', 1, null],
  [8, 'heidi', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0', 'test12345', 1, null],
  [9, 'ivan', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 1, null],
  [10, 'judy', 'ARGON2', 'argon pass', 1, null],
  [11, 'mallory', null, '', 1, null],
  [12, 'oscar', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 0, 'sales'],
  [13, 'peter', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 1, null],
  [14, 'pe%ter', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 1, null],
  [15, 'under', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 1, null],
  [16, 'un_der', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 1, null],
  [17, 'wow!x', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 1, null],
  [18, 'wowzx', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password', 1, null],
  [19, 'x-user', 'x', 'x', 1, null],
];
const ACTIVE = USERS.filter((u) => u[4] === 1).length;

async function fillUsers(dialect: DialectName, url: string, table: string): Promise<void> {
  const argon = await hashPassword('argon pass', { memoryKiB: 64, passes: 1, parallelism: 1 });
  await execute(dialect, url, [
    [userTable(dialect, table)],
    ...USERS.map(
      ([id, login, hash, _pw, active, dept]): Statement => [
        `INSERT INTO ${table} (id, login, pw, first_name, last_name, mail, tel, mob, note, active, dept)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          id,
          login,
          hash === 'ARGON2' ? argon : hash,
          login === 'alice' ? 'Zoë' : login.toUpperCase(),
          login === 'alice' ? "O'Brien" : 'Doe',
          `${login}@example.${id % 2 ? 'org' : 'com'}`,
          `+49 30 ${id}`,
          id % 3 ? `+49 170 ${id}` : null,
          `user ${id}`,
          active,
          dept,
        ],
      ],
    ),
  ]);
}

describe('parseWhere', () => {
  it.each([
    ['', []],
    ['active=1', [{ column: 'active', op: '=', value: 1 }]],
    ['active == 1', [{ column: 'active', op: '=', value: 1 }]],
    [
      "active = 1 AND dept = 'sales'",
      [
        { column: 'active', op: '=', value: 1 },
        { column: 'dept', op: '=', value: 'sales' },
      ],
    ],
    [
      "dept like 'sal%' and x <> 'it''s' AND y>=2.5",
      [
        { column: 'dept', op: 'like', value: 'sal%' },
        { column: 'x', op: '<>', value: "it's" },
        { column: 'y', op: '>=', value: 2.5 },
      ],
    ],
    ['email LIKE %@example.org', [{ column: 'email', op: 'like', value: '%@example.org' }]],
    ['email NOT LIKE "%@x.org"', [{ column: 'email', op: 'not like', value: '%@x.org' }]],
    [
      'dept IS NULL AND mob is not null',
      [
        { column: 'dept', op: 'is null', value: null },
        { column: 'mob', op: 'is not null', value: null },
      ],
    ],
    ['a != -3', [{ column: 'a', op: '<>', value: -3 }]],
    [
      'a < 1 and b > 2 AND c <= 3',
      [
        { column: 'a', op: '<', value: 1 },
        { column: 'b', op: '>', value: 2 },
        { column: 'c', op: '<=', value: 3 },
      ],
    ],
  ])('%j', (text, expected) => {
    expect(parseWhere(text)).toEqual(expected);
  });

  it.each([
    'active=1 OR 1=1',
    'active=1; DROP TABLE users',
    'active=1 -- comment',
    '(active=1)',
    'active=sleep(5)',
    "active='1",
    'active',
    'active 1',
    '1=1',
    'active=1 AND',
    'active=1 and or',
    'a=1 ANDb=2',
    'a IS 1',
    "a = 'x' UNION SELECT 1",
    'a = 1 /* x */',
    'users.active = 1',
    'a NOT = 1',
  ])('refuses %j', (text) => {
    expect(() => parseWhere(text)).toThrow(ParameterError);
  });
});

describe('sqlresolver settings', () => {
  const base = { Driver: 'sqlite', Database: `${tmpdir()}/nonexistent.db`, Table: 'users', Map: MAP };
  it.each([
    [{ Driver: 'oracle' }, /Driver 'oracle' is not supported/],
    [{ Driver: '' }, /Driver/],
    [{ Database: '' }, /Database/],
    [{ Table: '' }, /Table/],
    [{ Table: 'users; DROP TABLE users' }, /not a table name/],
    [{ Table: 'a.b.c' }, /not a table name/],
    [{ Map: '{"userid":"id"}' }, /username/],
    [{ Map: '{"username":"login"}' }, /userid/],
    [{ Map: '{"userid":"id","username":"login; DROP TABLE users"}' }, /not a column name/],
    [{ Map: '{"userid":"id","username":"t.login"}' }, /not a column name/],
    [{ Map: 'not json' }, /Map must be valid JSON/],
    [{ Where: 'active=1 OR 1=1' }, /Where/],
    [{ Password_Hash_Type: 'md4' }, /Password_Hash_Type/],
    [{ Limit: 'ten' }, /Limit/],
    [{ poolSize: '0' }, /poolSize/],
  ])('%j is refused', (change, message) => {
    const settings = { ...base, ...change };
    expect(() => sqlResolver.validate!(settings, files)).toThrow(message);
    expect(() => sqlResolver.open(settings, env)).toThrow(ParameterError);
  });

  it('accepts the SQLAlchemy driver spellings', () => {
    for (const Driver of [
      'sqlite',
      'postgresql',
      'postgres',
      'postgresql+psycopg2',
      'mysql',
      'mysql+pymysql',
      'mariadb',
    ]) {
      expect(() => sqlResolver.validate!({ ...base, Driver }, files)).not.toThrow();
    }
  });

  it('declares its settings', () => {
    expect(sqlResolver.type).toBe('sqlresolver');
    expect(sqlResolver.settings.Password!.type).toBe('password');
    expect(sqlResolver.settings.Limit!.default).toBe('100');
    expect(sqlResolver.settings.Password_Hash_Type!.default).toBe('SSHA256');
    expect(sqlResolver.settings.poolSize!.default).toBe('5');
  });
});

describe.each(testDialects())('sqlresolver on %s', (dialect) => {
  let tdb: TestDatabase;
  let conn: ResolverSettings;
  let settings: ResolverSettings;
  const stores: UserStore[] = [];
  const open = (s: ResolverSettings) => {
    const store = sqlResolver.open(s, env);
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    tdb = await createTestDatabase(dialect);
    conn = connectionSettings(dialect, tdb.url);
    await fillUsers(dialect, tdb.url, 'users');
    settings = { ...conn, Table: 'users', Map: MAP, Where: 'active = 1' };
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  describe('lookups', () => {
    it('finds a user by login with the mapped attributes; ids are strings, no password', async () => {
      const store = open(settings);
      expect(store.editable).toBe(false);
      expect(await store.findByLogin('alice')).toEqual({
        userid: '1',
        username: 'alice',
        givenname: 'Zoë',
        surname: "O'Brien",
        email: 'alice@example.org',
        phone: '+49 30 1',
        mobile: '+49 170 1',
        description: 'user 1',
        department: 'sales',
      });
      const grace = await store.findByLogin('grace');
      expect(grace).toMatchObject({ userid: '7', username: 'grace', mobile: '+49 170 7' });
      expect(grace).not.toHaveProperty('department'); // NULL → absent
      expect(grace).not.toHaveProperty('password');
      expect(await store.findByLogin('frank')).not.toHaveProperty('mobile');
      expect(await store.findByLogin('nobody')).toBeUndefined();
      expect(await store.findByLogin('')).toBeUndefined();
      expect(await store.findByLogin('alice ')).toBeUndefined(); // MySQL's `=` would ignore the blank
      expect(await store.findByLogin('al_ce')).toBeUndefined();
      expect(await store.findByLogin('pe%ter')).toMatchObject({ userid: '14' });
    });

    it('finds a user by id', async () => {
      const store = open(settings);
      expect(await store.findById('3')).toMatchObject({ userid: '3', username: 'carol' });
      expect(await store.findById('999')).toBeUndefined();
      // not numbers at all: no match, no error (and no MySQL '3abc' = 3 conversion)
      expect(await store.findById('abc')).toBeUndefined();
      expect(await store.findById('3abc')).toBeUndefined();
      expect(await store.findById('99999999999999999999')).toBeUndefined();
    });

    it('honours Where in every lookup', async () => {
      const store = open(settings);
      expect(await store.findByLogin('oscar')).toBeUndefined();
      expect(await store.findById('12')).toBeUndefined();
      expect((await store.search({}, 100)).map((u) => u.username)).not.toContain('oscar');
      const all = open({ ...settings, Where: '' });
      expect(await all.findByLogin('oscar')).toMatchObject({ userid: '12' });
    });

    it('Where with AND, quoted values, LIKE and IS NULL', async () => {
      const names = async (Where: string) =>
        (await open({ ...settings, Where }).search({}, 100)).map((u) => u.username).sort();
      expect(await names("active = 1 AND dept = 'sales'")).toEqual(['alice', 'bob']);
      expect(await names('dept == sales')).toEqual(['alice', 'bob', 'oscar']);
      expect(await names("dept like 'i%' and id > 3")).toEqual(['dave', 'erin']);
      expect(await names('dept IS NOT NULL AND active < 1')).toEqual(['oscar']);
      expect((await names('dept is null')).length).toBe(USERS.filter((u) => u[5] === null).length);
    });

    it('a schema-qualified table', async () => {
      let table = 'main.users';
      if (dialect === 'postgres') {
        await execute(dialect, tdb.url, [['CREATE SCHEMA people'], [userTable(dialect, 'people.staff')]]);
        await execute(dialect, tdb.url, [["INSERT INTO people.staff (login, pw) VALUES ('zed', 'x')"]]);
        table = 'people.staff';
      } else if (dialect === 'mysql') {
        table = `${conn.Database}.users`;
      }
      const store = open({ ...settings, Table: table, Where: '' });
      const expected = dialect === 'postgres' ? 'zed' : 'alice';
      expect(
        (await store.search({ username: `${expected.slice(0, 2)}*` }, 10)).map((u) => u.username),
      ).toEqual([expected]);
    });

    it('concurrent first calls share one pool', async () => {
      const store = open(settings);
      const found = await Promise.all(USERS.map(([, login]) => store.findByLogin(login)));
      expect(found.filter(Boolean).length).toBe(ACTIVE);
    });
  });

  describe('search', () => {
    it('with * wildcards, case-insensitive, by any mapped attribute', async () => {
      const store = open(settings);
      const names = async (filter: Record<string, string>) =>
        (await store.search(filter, 100)).map((u) => u.username).sort();
      expect(await names({ username: 'a*' })).toEqual(['alice']);
      expect(await names({ username: 'A*' })).toEqual(['alice']);
      expect(await names({ username: '*e*', email: '*.org' })).toEqual(
        USERS.filter(([id, login, , , a]) => a === 1 && login.includes('e') && id % 2 === 1)
          .map((u) => u[1])
          .sort(),
      );
      expect(await names({ givenname: 'zo*' })).toEqual(['alice']);
      expect(await names({ department: 'it' })).toEqual(['carol', 'dave', 'erin']);
      const active = USERS.filter((u) => u[4] === 1);
      expect(await names({ userid: '1*' })).toEqual(
        active
          .filter(([id]) => String(id).startsWith('1'))
          .map((u) => u[1])
          .sort(),
      );
      expect(await names({ username: 'alice' })).toEqual(['alice']);
      expect(await names({ username: 'ali' })).toEqual([]); // no wildcard: exact
      expect((await store.search({}, 100)).length).toBe(ACTIVE);
      expect((await store.search({ username: '*' }, 100)).length).toBe(ACTIVE);
    });

    it('% and _ in a search value are literal characters', async () => {
      const store = open(settings);
      const names = async (username: string) =>
        (await store.search({ username }, 100)).map((u) => u.username).sort();
      expect(await names('pe%*')).toEqual(['pe%ter']);
      expect(await names('*%*')).toEqual(['pe%ter']);
      expect(await names('un_*')).toEqual(['un_der']);
      expect(await names('*_*')).toEqual(['un_der']);
      expect(await names('wow!*')).toEqual(['wow!x']);
      expect(await names('p%')).toEqual([]);
      expect(await names('pe%ter')).toEqual(['pe%ter']);
      expect(await names('un_der')).toEqual(['un_der']);
    });

    it('matches nobody on unmapped fields and never searches the password column', async () => {
      const store = open(settings);
      expect(await store.search({ shoesize: '4*' }, 10)).toEqual([]);
      expect(await store.search({ password: '*' }, 10)).toEqual([]);
      expect(await store.search({ username: 'a*', shoesize: '*' }, 10)).toEqual([]);
      expect((await store.search({ username: 'a*' }, 10)).length).toBeGreaterThan(0);
    });

    it('Limit caps every search; the smaller limit wins', async () => {
      const store = open({ ...settings, Limit: '2' });
      expect((await store.search({}, 100)).map((u) => u.userid)).toEqual(['1', '2']);
      expect((await store.search({ username: '*' }, 1)).length).toBe(1);
      expect(await store.search({}, 0)).toEqual([]);
      expect((await open(settings).search({}, 5)).length).toBe(5);
    });

    it('injection attempts in search values find nothing and change nothing', async () => {
      const store = open(settings);
      for (const value of [
        "' OR '1'='1",
        "alice' --",
        "*' OR 1=1 --",
        "alice'; DROP TABLE users; --",
        '" OR ""="',
        '\\',
        "\\' OR 1=1 #",
        "*'*",
      ]) {
        expect(await store.search({ username: value }, 100)).toEqual([]);
        expect(await store.findByLogin(value)).toBeUndefined();
        expect(await store.findById(value)).toBeUndefined();
      }
      expect((await store.search({}, 100)).length).toBe(ACTIVE);
    });
  });

  describe('passwords', () => {
    it.each(USERS.filter((u) => u[4] === 1 && u[2] !== null && u[2] !== 'x'))(
      'user %s / %s: the stored format is checked',
      async (_id, login, _hash, password) => {
        const store = open(settings);
        const user = (await store.findByLogin(login))!;
        expect(await store.checkPassword(user, password)).toBe(true);
        expect(await store.checkPassword(user, `${password}1`)).toBe(false);
        expect(await store.checkPassword(user, '')).toBe(false);
      },
    );

    it("an unknown login costs a check like the first user's, then like the last hash looked up", async () => {
      const store = open(settings);
      const counted = async (run: () => Promise<unknown>) => {
        const before = hashesStarted();
        await run();
        return hashesStarted() - before;
      };
      // Before any lookup: the first user's hash (alice, sha512-crypt), read once.
      expect(await counted(() => store.checkPasswordOfNobody!('x'))).toBe(1);
      // After one: the last costly hash seen (carol, bcrypt); a cheap one (dave, SSHA) changes nothing.
      const carol = (await store.findByLogin('carol'))!;
      await store.findByLogin('dave');
      expect(await counted(() => store.checkPassword(carol, 'wrong'))).toBe(1);
      expect(await counted(() => store.checkPasswordOfNobody!('wrong'))).toBe(1);
    });

    it('NULL and x hashes never match', async () => {
      const store = open(settings);
      expect(await store.checkPassword((await store.findByLogin('mallory'))!, '')).toBe(false);
      expect(await store.checkPassword((await store.findByLogin('x-user'))!, 'x')).toBe(false);
    });

    it('a copy of the record is checked by reading the hash again', async () => {
      const store = open(settings);
      const copy = { ...(await store.findByLogin('dave'))! };
      expect(await store.checkPassword(copy, 'secret')).toBe(true);
      expect(await store.checkPassword({ ...copy, username: 'mallory' }, 'secret')).toBe(false);
      expect(await store.checkPassword({ userid: '12', username: 'oscar' }, 'password')).toBe(false); // Where
      expect(await store.checkPassword({ userid: '404', username: 'ghost' }, 'x')).toBe(false);
    });

    it('without a password column nothing matches', async () => {
      const store = open({ ...settings, Map: JSON.stringify({ userid: 'id', username: 'login' }) });
      const dave = (await store.findByLogin('dave'))!;
      expect(dave).toEqual({ userid: '4', username: 'dave' });
      expect(await store.checkPassword(dave, 'secret')).toBe(false);
    });
  });

  describe('editable', () => {
    let table: string;
    let n = 0;
    beforeEach(async () => {
      table = `edit${++n}`;
      await execute(dialect, tdb.url, [[userTable(dialect, table)]]);
    });
    const storedHash = async (login: string) =>
      (
        (await execute(dialect, tdb.url, [[`SELECT pw FROM ${table} WHERE login = ?`, [login]]]))[0]![0] as {
          pw: string;
        }
      ).pw;

    it('creates, updates and deletes users; passwords hashed with Password_Hash_Type (default SSHA256)', async () => {
      const store = open({ ...conn, Table: table, Map: MAP, Editable: '1' });
      expect(store.editable).toBe(true);
      const id = await store.create!(
        { username: 'newbie', givenname: 'New', email: 'new@example.org' },
        'first pw',
      );
      expect(id).toMatch(/^\d+$/);
      const id2 = await store.create!({ username: 'second', password: 'via changes' }, undefined);
      expect(Number(id2)).toBeGreaterThan(Number(id));
      expect(await storedHash('newbie')).toMatch(/^\{SSHA256\}/);

      const user = (await store.findByLogin('newbie'))!;
      expect(user).toEqual({ userid: id, username: 'newbie', givenname: 'New', email: 'new@example.org' });
      expect(await store.checkPassword(user, 'first pw')).toBe(true);
      expect(await store.checkPassword((await store.findByLogin('second'))!, 'via changes')).toBe(true);

      await store.update!(user, { surname: 'Comer', mobile: '+1 555' }, 'second pw');
      const changed = (await store.findById(id))!;
      expect(changed).toMatchObject({ givenname: 'New', surname: 'Comer', mobile: '+1 555' });
      expect(await store.checkPassword(changed, 'first pw')).toBe(false);
      expect(await store.checkPassword(changed, 'second pw')).toBe(true);
      await store.update!(changed, {}, undefined); // nothing to do
      await store.update!(changed, { userid: id }, undefined);

      await expect(store.update!(changed, { userid: '777' }, undefined)).rejects.toThrow(ParameterError);
      await expect(store.update!(changed, { shoesize: '44' }, undefined)).rejects.toThrow(ParameterError);
      await expect(store.create!({ username: 'newbie' }, 'x')).rejects.toThrow(UserError);
      await expect(store.create!({ givenname: 'Anon' }, 'x')).rejects.toThrow(ParameterError);
      await expect(store.create!({ username: 'odd', shoesize: '44' }, 'x')).rejects.toThrow(ParameterError);

      await store.delete!(changed);
      expect(await store.findById(id)).toBeUndefined();
      await expect(store.delete!(changed)).rejects.toThrow(UserError);
      await expect(
        store.update!({ userid: '4040', username: 'ghost' }, { surname: 'X' }, undefined),
      ).rejects.toThrow(UserError);
    });

    it('a given userid is kept', async () => {
      const store = open({ ...conn, Table: table, Map: MAP, Editable: 'True' });
      expect(await store.create!({ userid: '4711', username: 'fixed' }, undefined)).toBe('4711');
      expect(await store.findById('4711')).toMatchObject({ username: 'fixed' });
    });

    it.each([
      ['SSHA', /^\{SSHA\}/],
      ['SSHA512', /^\{SSHA512\}/],
      ['SHA256', /^\{SHA256\}/],
      ['bcrypt', /^\$2b\$/],
      ['sha512-crypt', /^\$6\$/],
      ['phpass', /^\$P\$/],
    ])('Password_Hash_Type %s', async (type, shape) => {
      const store = open({ ...conn, Table: table, Map: MAP, Editable: '1', Password_Hash_Type: type });
      await store.create!({ username: 'hashed' }, 'pässword');
      expect(await storedHash('hashed')).toMatch(shape);
      expect(await store.checkPassword((await store.findByLogin('hashed'))!, 'pässword')).toBe(true);
    });

    it('Where limits what can be changed', async () => {
      await execute(dialect, tdb.url, [
        [`INSERT INTO ${table} (id, login, active) VALUES (50, 'hidden', 0)`],
      ]);
      const store = open({ ...conn, Table: table, Map: MAP, Editable: '1', Where: 'active=1' });
      await expect(store.delete!({ userid: '50', username: 'hidden' })).rejects.toThrow(UserError);
      expect(await execute(dialect, tdb.url, [[`SELECT id FROM ${table} WHERE id = 50`]])).toEqual([
        [{ id: 50 }],
      ]);
    });

    it('a store that is not editable refuses to change anything', async () => {
      await execute(dialect, tdb.url, [[`INSERT INTO ${table} (id, login) VALUES (60, 'kept')`]]);
      const store = open({ ...conn, Table: table, Map: MAP, Editable: '0' });
      expect(store.editable).toBe(false);
      const kept = (await store.findByLogin('kept'))!;
      await expect(store.create!({ username: 'no' }, 'x')).rejects.toThrow(UserError);
      await expect(store.update!(kept, { surname: 'No' }, 'x')).rejects.toThrow(UserError);
      await expect(store.delete!(kept)).rejects.toThrow(UserError);
      expect(await store.findByLogin('kept')).toEqual({ userid: '60', username: 'kept' });
      expect(await store.findByLogin('no')).toBeUndefined();
    });

    it('values with quotes are stored as they are', async () => {
      const store = open({ ...conn, Table: table, Map: MAP, Editable: '1' });
      const evil = "x'); DROP TABLE users; --";
      const id = await store.create!({ username: 'quoted', surname: evil, description: '\\"\'' }, undefined);
      expect(await store.findById(id)).toMatchObject({ surname: evil, description: '\\"\'' });
      expect((await open(settings).search({}, 100)).length).toBe(ACTIVE);
    });
  });

  describe('test()', () => {
    it('counts the users the Where filter lets through', async () => {
      expect(await sqlResolver.test(settings, env)).toEqual({
        value: ACTIVE,
        description: `Found ${ACTIVE} users.`,
      });
      expect(await sqlResolver.test({ ...settings, Where: '' }, env)).toEqual({
        value: USERS.length,
        description: `Found ${USERS.length} users.`,
      });
      expect(await sqlResolver.test({ ...settings, Where: "dept = 'it'" }, env)).toMatchObject({ value: 3 });
    });

    it('a missing table or column: Failed to retrieve users.', async () => {
      const failed = { value: -1, description: 'Failed to retrieve users.' };
      expect(await sqlResolver.test({ ...settings, Table: 'nosuchtable' }, env)).toEqual(failed);
      const badMap = JSON.stringify({ userid: 'id', username: 'nosuchcolumn' });
      expect(await sqlResolver.test({ ...settings, Map: badMap }, env)).toEqual(failed);
      expect(await sqlResolver.test({ ...settings, Where: 'nosuchcolumn = 1' }, env)).toEqual(failed);
    });

    it('no connection: Unable to connect to database.', async () => {
      const unable = { value: -1, description: 'Unable to connect to database.' };
      if (dialect === 'sqlite') {
        expect(await sqlResolver.test({ ...settings, Database: `${conn.Database}.missing` }, env)).toEqual(
          unable,
        );
        return;
      }
      const port = await closedPort();
      expect(await sqlResolver.test({ ...settings, Server: '127.0.0.1', Port: String(port) }, env)).toEqual(
        unable,
      );
      // trust authentication on the test PostgreSQL accepts any password, not an unknown role
      const wrongCredentials: ResolverSettings =
        dialect === 'postgres'
          ? { User: 'no_such_role_x' }
          : { User: conn.User || 'root', Password: 'wrong password' };
      expect(await sqlResolver.test({ ...settings, ...wrongCredentials }, env)).toEqual(unable);
      expect(await sqlResolver.test({ ...settings, Database: 'no_such_database_x' }, env)).toEqual(unable);
    });

    it('lookups against a dead server fail with a ResolverError', async () => {
      const s =
        dialect === 'sqlite'
          ? { ...settings, Database: `${conn.Database}.missing` }
          : { ...settings, Server: '127.0.0.1', Port: String(await closedPort()) };
      const store = open(s);
      await expect(store.findByLogin('alice')).rejects.toThrow(ResolverError);
      await expect(store.search({}, 10)).rejects.toThrow(ResolverError);
    });

    // SQLite has no server to wait for.
    const networkOnly = dialect === 'sqlite' ? () => undefined : it;
    networkOnly('a server that never answers fails within the connect timeout', async () => {
      const hole = await blackHole();
      try {
        const s = { ...settings, Server: '127.0.0.1', Port: String(hole.port) };
        const store = open(s);
        const t = Date.now();
        const [tested, lookup] = await Promise.allSettled([
          sqlResolver.test(s, env),
          store.findByLogin('alice'),
        ]);
        expect(Date.now() - t).toBeLessThan(8000);
        expect(tested).toEqual({
          status: 'fulfilled',
          value: { value: -1, description: 'Unable to connect to database.' },
        });
        expect(lookup.status === 'rejected' && lookup.reason).toBeInstanceOf(ResolverError);
      } finally {
        await hole.close();
      }
    });

    it('injection through settings never reaches SQL', async () => {
      const changes: ResolverSettings[] = [
        { Where: 'active=1; DROP TABLE users' },
        { Table: 'users; DROP TABLE users' },
        { Map: JSON.stringify({ userid: 'id', username: 'login FROM users; DROP TABLE users; --' }) },
      ];
      for (const change of changes) {
        await expect(sqlResolver.test({ ...settings, ...change }, env)).rejects.toThrow(ParameterError);
      }
      expect((await sqlResolver.test(settings, env)).value).toBe(ACTIVE);
    });
  });

  it('close() releases the pool; a closed store refuses work', async () => {
    const store = open(settings);
    expect(await store.findByLogin('bob')).toBeDefined();
    await store.close();
    await store.close();
    await expect(store.findByLogin('bob')).rejects.toThrow(ResolverError);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP server that accepts connections and never says a word. */
async function blackHole(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
