// sqlresolver: users in a table of an SQL database (SQLite, PostgreSQL, MariaDB/MySQL), columns
// named by a JSON map.
import type { ResolverKind, TestResult } from '../user-store.ts';
import { configOf } from './config.ts';
import { SQL_SETTINGS } from './settings.ts';
import { SqlStore } from './store.ts';

export const sqlResolver: ResolverKind = {
  type: 'sqlresolver',
  settings: SQL_SETTINGS,
  validate(settings, files) {
    const cfg = configOf(settings);
    if (cfg.dialect === 'sqlite') files.checkSetting(cfg.database, 'Database');
  },
  open: (settings, env) => new SqlStore(configOf(settings), env),
  async test(settings, env): Promise<TestResult> {
    const store = new SqlStore(configOf(settings), env);
    try {
      try {
        await store.ping();
      } catch (e) {
        env.log.info({ err: e }, 'SQL resolver test: no connection');
        return { value: -1, description: 'Unable to connect to database.' };
      }
      try {
        const n = await store.count();
        return { value: n, description: `Found ${n} users.` };
      } catch (e) {
        env.log.info({ err: e }, 'SQL resolver test: query failed');
        return { value: -1, description: 'Failed to retrieve users.' };
      }
    } finally {
      await store.close();
    }
  },
};
