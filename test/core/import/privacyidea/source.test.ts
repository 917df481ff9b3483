// The privacyIDEA database named as pi.cfg names it: SQLAlchemy URLs and plain file paths.
import { describe, expect, it } from 'vitest';
import { sourceTarget } from '../../../../src/core/import/privacyidea/source.ts';

describe('sourceTarget', () => {
  it('takes SQLite files by path and by SQLAlchemy URL', () => {
    expect(sourceTarget('pi.sqlite', '/srv')).toEqual({ dialect: 'sqlite', file: '/srv/pi.sqlite' });
    expect(sourceTarget('/var/lib/pi.sqlite', '/srv')).toEqual({
      dialect: 'sqlite',
      file: '/var/lib/pi.sqlite',
    });
    expect(sourceTarget('sqlite:////etc/privacyidea/data.sqlite', '/srv')).toEqual({
      dialect: 'sqlite',
      file: '/etc/privacyidea/data.sqlite',
    });
    expect(sourceTarget('sqlite:///data.sqlite', '/srv')).toEqual({
      dialect: 'sqlite',
      file: '/srv/data.sqlite',
    });
  });

  it('takes PostgreSQL and MariaDB/MySQL URLs with SQLAlchemy driver names', () => {
    expect(sourceTarget('postgresql+psycopg2://pi:pw@db/pi', '/')).toEqual({
      dialect: 'postgres',
      url: 'postgres://pi:pw@db/pi',
    });
    expect(sourceTarget('postgresql://db/pi', '/')).toEqual({ dialect: 'postgres', url: 'postgres://db/pi' });
    expect(sourceTarget('mysql+pymysql://pi:pw@db/pi?charset=utf8', '/')).toEqual({
      dialect: 'mysql',
      url: 'mysql://pi:pw@db/pi',
    });
    expect(sourceTarget('mariadb+mariadbconnector://db/pi', '/')).toEqual({
      dialect: 'mysql',
      url: 'mysql://db/pi',
    });
  });

  it('refuses other schemes and a SQLite URL without a file', () => {
    expect(() => sourceTarget('oracle://db/pi', '/')).toThrow(
      /Unsupported privacyIDEA database URL scheme 'oracle:'/,
    );
    expect(() => sourceTarget('sqlite://', '/')).toThrow(/names no SQLite file/);
  });
});
