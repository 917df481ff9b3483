// The settings of an SQL resolver as the API describes them, with privacyIDEA's SQLIdResolver names.
import type { SettingSpec } from '../user-store.ts';

export const SQL_SETTINGS: Record<string, SettingSpec> = {
  Driver: {
    type: 'string',
    description: 'sqlite, postgresql or mysql/mariadb (SQLAlchemy names like mysql+pymysql accepted)',
    required: true,
  },
  Server: { type: 'string', description: 'Database server host name', default: 'localhost' },
  Port: { type: 'int', description: 'Database server port (default: 5432 PostgreSQL, 3306 MySQL)' },
  Database: {
    type: 'string',
    description: 'Database name; for SQLite the path of the file',
    required: true,
  },
  User: { type: 'string', description: 'Database user' },
  Password: {
    type: 'password',
    description: 'Password of the database user',
    destination: ['Driver', 'Server', 'Port', 'Database', 'User'],
  },
  Table: { type: 'string', description: 'Table of the users, optionally schema.table', required: true },
  Map: {
    type: 'json',
    description:
      'JSON map of attribute → column; needs userid and username, may have password, givenname, surname, ' +
      'email, phone, mobile, description and others',
    required: true,
  },
  Where: {
    type: 'string',
    description: "Extra filter: column comparisons joined by AND, e.g. active = 1 AND type = 'staff'",
  },
  Limit: { type: 'int', description: 'Most users a search returns', default: '100' },
  Editable: { type: 'bool', description: 'Users can be created, changed and deleted', default: 'False' },
  Password_Hash_Type: {
    type: 'string',
    description:
      'Hash of passwords written to the table: SSHA256, SSHA, SSHA512, SHA256, SHA512, OTRS, bcrypt, ' +
      'sha512-crypt, sha256-crypt, phpass or argon2id',
    default: 'SSHA256',
  },
  poolSize: { type: 'int', description: 'Connections kept open to the database', default: '5' },
  // privacyIDEA settings accepted so that its configurations import unchanged; authsrv does not
  // need them (UTF-8 drivers, its own pool management).
  Encoding: {
    type: 'string',
    description: 'Accepted for compatibility; not used (the drivers speak UTF-8)',
  },
  conParams: { type: 'string', description: 'Accepted for compatibility; not used' },
  poolTimeout: { type: 'int', description: 'Accepted for compatibility; not used' },
  poolRecycle: { type: 'int', description: 'Accepted for compatibility; not used' },
};
