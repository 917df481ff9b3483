// A runtime without an HTTP server, for service-level tests: its own data directory and database,
// a clock the test can move, and the local operator as the caller.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.ts';
import {
  type Context,
  localOperator,
  type Random,
  type Runtime,
  withCaller,
} from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { createTestDatabase, type DialectName } from './dialects.ts';

export interface TestRuntime {
  rt: Runtime;
  /** The runtime with the local operator (an administrator) as the caller. */
  ctx: Context;
  dataDir: string;
  /** Moves the clock of the runtime. */
  setNow(d: Date): void;
  close(): Promise<void>;
}

export async function openTestRuntime(
  dialect: DialectName,
  options: { config?: Record<string, string>; now?: Date; random?: Random } = {},
): Promise<TestRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'authsrv-rt-'));
  const db = await createTestDatabase(dialect, dataDir);
  let now = options.now ?? new Date('2026-03-01T12:00:00.000Z');
  const config = loadConfig({
    env: {},
    overrides: {
      data_dir: dataDir,
      database_url: db.url,
      node_name: 'test-node',
      // Tests make many failed logins on purpose: throttled only where a test turns it on.
      'throttle.enabled': 'false',
      ...options.config,
    },
  });
  const rt = await openRuntime(config, {
    logger: pino({ level: 'silent' }),
    clock: () => new Date(now),
    ...(options.random ? { random: options.random } : {}),
  });
  return {
    rt,
    ctx: withCaller(rt, localOperator()),
    dataDir,
    setNow(d) {
      now = d;
    },
    async close() {
      await rt.store.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
