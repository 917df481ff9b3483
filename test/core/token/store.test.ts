// The token store (src/core/token/store/) is the one writer of the token tables: no other file of
// src/ inserts, updates or deletes rows of a table whose name starts with `token` (token,
// tokeninfo, tokenowner, tokenrealm, tokengroup, tokengroup_token, PostgreSQL's token_count),
// whether with Kysely's builders (any quotes), the bulk insert helper or raw SQL. src/store/ is
// the exception: its schema and migrations create the tables, their indexes and triggers, and
// migrate existing rows once at upgrade; that is the database's shape, not a service writing tokens
// (and src/store/ sits below core, where the token store cannot be imported).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..', '..');

/** Where writes of the token tables may be (relative to the repository, `/`-separated). */
const ALLOWED = ['src/core/token/store/', 'src/store/'];

const TABLE = String.raw`(['"\x60])(token\w*)`;

/** The forms of a write of a token table; each captures the table name as `table`. */
const WRITES: readonly RegExp[] = [
  // db.insertInto('token'), .updateTable("tokeninfo"), .deleteFrom(`tokenowner`), also over lines
  new RegExp(String.raw`\b(?:insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*${TABLE}`, 'g'),
  // insertRows(trx, dialect, 'tokenrealm', rows) of src/store/bulk-insert.ts
  new RegExp(String.raw`\binsertRows\([^;]*?,[^;]*?,\s*${TABLE}`, 'g'),
  // sql`UPDATE tokeninfo SET …`, `delete from "tokenowner" where …`, `insert into ${sql.table('token')} …`
  /\b(?:insert\s+into|update|delete\s+from)\s+(?:\$\{\s*sql\.(?:table|id)\(\s*)?(["'\x60]?)(token\w*)\b/gi,
];

interface Offence {
  file: string;
  line: number;
  table: string;
}

/** The writes of token tables in one file's text, each at the line where the write starts. */
function tokenTableWrites(file: string, text: string): Offence[] {
  const out: Offence[] = [];
  for (const pattern of WRITES)
    for (const m of text.matchAll(pattern)) {
      const table = m[2] as string;
      // A raw-SQL keyword followed by a word (`update token settings`) in prose is not SQL: only
      // quoted names, or names followed by what follows a table in SQL, count.
      const after = text.slice((m.index ?? 0) + m[0].length);
      if (pattern === WRITES[2] && !m[1] && !/^\s*(?:set|values|where|select|\(|as\b|")/i.test(after))
        continue;
      out.push({ file, line: text.slice(0, m.index).split('\n').length, table });
    }
  return out.sort((a, b) => a.line - b.line);
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every write of a token table in src/ outside the allowed folders. */
function offencesInSrc(): Offence[] {
  return tsFiles(join(REPO, 'src')).flatMap((path) => {
    const file = relative(REPO, path).split(sep).join('/');
    if (ALLOWED.some((folder) => file.startsWith(folder))) return [];
    return tokenTableWrites(file, readFileSync(path, 'utf8'));
  });
}

describe('the token store is the one writer of the token tables', () => {
  it('no file of src/ outside src/core/token/store/ and src/store/ writes a token table', () => {
    const named = offencesInSrc().map((o) => `${o.file}:${o.line} writes ${o.table}`);
    expect(named, 'write it through a named function of src/core/token/store/').toEqual([]);
  });

  it('the store itself writes every token table of the schema', () => {
    const store = tsFiles(join(REPO, 'src/core/token/store')).flatMap((path) =>
      tokenTableWrites(path, readFileSync(path, 'utf8')),
    );
    const written = new Set(store.map((o) => o.table));
    const schema = readFileSync(join(REPO, 'src/store/schema.ts'), 'utf8');
    const database = /export interface Database \{([^}]*)\}/.exec(schema)?.[1] ?? '';
    const tables = [...database.matchAll(/^\s*(token\w*):/gm)].map((m) => m[1] as string);
    expect(tables.length).toBeGreaterThan(5);
    for (const table of tables) expect(written, table).toContain(table);
  });
});

describe('tokenTableWrites', () => {
  const found = (text: string) => tokenTableWrites('x.ts', text).map((o) => `${o.line}:${o.table}`);

  it('finds the builders with any quotes, also across lines', () => {
    expect(found(`db.insertInto('token').values(row)`)).toEqual(['1:token']);
    expect(found(`db.updateTable("tokeninfo").set(v)`)).toEqual(['1:tokeninfo']);
    expect(found('db.deleteFrom(`tokenowner`).where(w)')).toEqual(['1:tokenowner']);
    expect(found(`a;\ndb\n  .deleteFrom(\n    'tokengroup_token',\n  )`)).toEqual(['3:tokengroup_token']);
    expect(found(`db.updateTable('tokenrealm as r')`)).toEqual(['1:tokenrealm']);
  });

  it('finds the bulk insert helper and raw SQL', () => {
    expect(found(`await insertRows(\n  trx,\n  dialect,\n  'tokenrealm',\n  rows,\n);`)).toEqual([
      '1:tokenrealm',
    ]);
    expect(found('sql`UPDATE tokeninfo SET value = 1`')).toEqual(['1:tokeninfo']);
    expect(found('sql`delete from "tokenowner" where id = 1`')).toEqual(['1:tokenowner']);
    expect(found(`sql\`insert into \${sql.table('token')} values (1)\``)).toEqual(['1:token']);
  });

  it('passes over reads, other tables and prose', () => {
    expect(found(`db.selectFrom('token').innerJoin('tokeninfo', 'a', 'b')`)).toEqual([]);
    expect(found(`db.updateTable('realm'); db.deleteFrom('challenge')`)).toEqual([]);
    expect(found('// the update token request, delete from token groups by hand')).toEqual([]);
  });
});
