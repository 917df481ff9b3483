// The privacyIDEA database an import reads: a SQLite file, or a PostgreSQL or MariaDB/MySQL server,
// named the way privacyIDEA's pi.cfg names it (SQLAlchemy URLs such as `sqlite:////etc/pi.sqlite`,
// `postgresql+psycopg2://…`, `mysql+pymysql://…`) or as a plain file path. It is only ever read.
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { ParameterError } from '../../../errors.ts';
import { type DatabaseTarget, openPool } from '../../../store/index.ts';

/** privacyIDEA's tables are read by name; their rows are plain records (column names as stored). */
// biome-ignore lint/suspicious/noExplicitAny: the schema is privacyIDEA's, read table by table
export type PiDatabase = Kysely<any>;

export interface PiSource {
  db: PiDatabase;
  dialect: DatabaseTarget['dialect'];
  /** alembic_version.version_num: privacyIDEA's schema version. */
  schemaVersion: string;
  close(): Promise<void>;
}

/** The schema heads of privacyIDEA 3.8 to 3.11 (newest first), whose tables this import reads. */
export const KNOWN_SCHEMA_VERSIONS: readonly string[] = [
  '903a6ed6f6c4',
  'c128c01a5520',
  '7301d5130c3a',
  'eac770c0bbed',
  '69e7817b9863',
  '2100d1fad908',
  '250931d82e51',
  '5741e5dac477',
  'db6b2ef8100f',
  'd0e7144947d0',
  'e3a64b4ca634',
  '5cb310101a1f',
  '4a0aec37e7cf',
  '006d4747f858',
];

/** The connection target of a URL or file path; relative files are taken from `baseDir`. */
export function sourceTarget(urlOrFile: string, baseDir: string): DatabaseTarget {
  const scheme = /^([a-z][a-z0-9]*)(\+[a-z0-9_]+)?:/i.exec(urlOrFile);
  if (!scheme) return { dialect: 'sqlite', file: resolve(baseDir, urlOrFile) };
  const name = (scheme[1] as string).toLowerCase();
  const rest = urlOrFile.slice(scheme[0].length);
  if (name === 'sqlite') {
    // SQLAlchemy: sqlite:///relative.db, sqlite:////absolute.db
    const path = rest.startsWith('///') ? rest.slice(3) : rest.replace(/^\/\//, '');
    if (!path) throw new ParameterError('The privacyIDEA database URL names no SQLite file');
    return { dialect: 'sqlite', file: isAbsolute(path) ? path : resolve(baseDir, path) };
  }
  if (name === 'postgresql' || name === 'postgres') return { dialect: 'postgres', url: `postgres:${rest}` };
  if (name === 'mysql' || name === 'mariadb') return { dialect: 'mysql', url: `mysql:${withoutQuery(rest)}` };
  throw new ParameterError(
    `Unsupported privacyIDEA database URL scheme '${scheme[0]}': use a SQLite file, postgresql:// or mysql://`,
  );
}

/** SQLAlchemy's MySQL options (charset=utf8 …) are driver settings mysql2 does not take. */
function withoutQuery(rest: string): string {
  const at = rest.indexOf('?');
  return at < 0 ? rest : rest.slice(0, at);
}

/** Opens the database read-only and checks that it is privacyIDEA's, of a schema this import knows. */
export async function openPrivacyideaDatabase(urlOrFile: string, baseDir: string): Promise<PiSource> {
  const target = sourceTarget(urlOrFile, baseDir);
  if (target.dialect === 'sqlite' && !existsSync(target.file))
    throw new ParameterError(`The privacyIDEA database file ${target.file} does not exist`);
  const db: PiDatabase = await openPool(target, {
    maxConnections: 2,
    connectTimeoutMs: 10_000,
    sqlite: { readOnly: true, busyTimeoutMs: 5_000 },
    // Dates as the server's text on every dialect (SQLite's DATETIME is text): values.ts reads them
    // to the microsecond, which privacyIDEA's audit signatures cover.
    postgres: { int8AsNumber: true, datesAsText: true },
    mysql: { utc: true, datesAsText: true },
  });
  try {
    const schemaVersion = await readSchemaVersion(db);
    return { db, dialect: target.dialect, schemaVersion, close: () => db.destroy() };
  } catch (e) {
    await db.destroy();
    throw e;
  }
}

async function readSchemaVersion(db: PiDatabase): Promise<string> {
  let row: { version_num?: string } | undefined;
  try {
    row = await db.selectFrom('alembic_version').select('version_num').executeTakeFirst();
  } catch (e) {
    throw new ParameterError(
      `This is not a privacyIDEA database (no table alembic_version): ${(e as Error).message}`,
    );
  }
  const version = row?.version_num ?? '';
  if (!KNOWN_SCHEMA_VERSIONS.includes(version))
    throw new ParameterError(
      `privacyIDEA schema version '${version}' is not one this import knows (privacyIDEA 3.8 to 3.11); upgrade privacyIDEA with pi-manage db upgrade first`,
    );
  return version;
}
