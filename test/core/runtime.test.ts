import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { localOperator, type Runtime, withCaller } from '../../src/core/context.ts';
import { openRuntime, upgradeDatabase } from '../../src/core/runtime.ts';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/dialects.ts';

describe.each(testDialects())('upgradeDatabase on %s', (dialect) => {
  let dataDir: string;
  let db: TestDatabase;
  let rt: Runtime;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'authsrv-upgrade-'));
    db = await createTestDatabase(dialect, dataDir);
    const config = loadConfig({ env: {}, overrides: { data_dir: dataDir, database_url: db.url } });
    rt = await openRuntime(config, { migrate: false, logger: pino({ level: 'silent' }) });
  });
  afterEach(async () => {
    await rt?.store.close();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies the pending migrations with one audit row, then has nothing to do and writes none', async () => {
    const ctx = withCaller(rt, localOperator());
    const applied = await upgradeDatabase(ctx);
    expect(applied[0]).toBe('0001_base');
    expect(await upgradeDatabase(ctx)).toEqual([]);
    const rows = await rt.store.db.selectFrom('audit').selectAll().execute();
    expect(rows.map((r) => [r.action, r.success, r.info, r.user_agent])).toEqual([
      ['CLI db upgrade', 1, applied.join(', '), 'authsrv-cli'],
    ]);
  });
});
