// Opens everything a server or a CLI command needs, in one place, so both behave the same: the
// data directory with its keys, the database (migrated to the latest schema) and the node record;
// and upgrades the database of a runtime opened without migrating (`authsrv db upgrade`).
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { cryptoRandom, ensureDataDir, keyFiles, loadServerKeys, SecurityModule } from '../crypto/index.ts';
import { HsmError } from '../errors.ts';
import { AllowedFiles, readRegularFile } from '../files/index.ts';
import { databaseFiles, defaultDatabaseUrl, migrate, openDatabase } from '../store/index.ts';
import { recordCliAction } from './audit/index.ts';
import type { Context, Random, Runtime } from './context.ts';
import { checkEncryptionKey } from './key-check.ts';
import { NO_METRICS, openMetrics } from './metrics/index.ts';
import { lastStatsValues } from './monitoring/index.ts';
import { WORKER_ID } from './worker-id.ts';

export interface OpenOptions {
  /** Run pending migrations (the default); `authsrv db upgrade` runs them explicitly. */
  migrate?: boolean;
  logger?: Logger;
  clock?: () => Date;
  random?: Random;
  /**
   * Count for GET /metrics when metrics.enabled (`authsrv serve`); other commands count nothing,
   * and neither load prom-client nor read metrics.token_file.
   */
  metrics?: boolean;
}

export async function openRuntime(config: Config, options: OpenOptions = {}): Promise<Runtime> {
  const dataDir = resolve(config.dataDir);
  ensureDataDir(dataDir);
  const hsm = SecurityModule.load(dataDir);
  if (!hsm.isReady() && config.security.keyPasswordFile !== '') {
    const file = config.security.keyPasswordFile;
    try {
      hsm.unlock(readKeyPassword(file));
    } catch (e) {
      if (!(e instanceof HsmError) || e.message.includes(file)) throw e;
      throw new HsmError(`${e.message} (password read from security.key_password_file ${file})`);
    }
  }
  const keys = loadServerKeys(dataDir);
  const databaseUrl = config.databaseUrl || defaultDatabaseUrl(dataDir);
  const store = await openDatabase(databaseUrl, dataDir);
  const log =
    options.logger ??
    pino({
      level: config.log.level,
      redact: ['password', 'pass', '*.password'],
      // The worker id joins pino's pid and hostname, so that an answer's threadid finds its lines.
      base: { pid: process.pid, hostname: hostname(), threadid: WORKER_ID },
    });
  try {
    if (options.migrate !== false) await migrate(store);
    const runtime: Runtime = {
      store,
      config,
      hsm,
      keys,
      log,
      clock: options.clock ?? (() => new Date()),
      random: options.random ?? cryptoRandom,
      node: config.nodeName,
      files: allowedFiles(config, dataDir, databaseUrl),
      metrics: options.metrics ? await openMetrics(config, log) : NO_METRICS,
    };
    // GET /metrics shows the last value of every monitoring stats key, read at each scrape.
    if (runtime.metrics.enabled)
      runtime.metrics.addStatsSource(async () => Object.entries(await lastStatsValues(runtime)));
    if (options.migrate !== false) {
      // A node whose key does not open this database is refused before it is recorded as a node.
      await checkEncryptionKey(runtime);
      await registerNode(runtime);
    }
    return runtime;
  } catch (e) {
    await store.close();
    throw e;
  }
}

/**
 * Applies the pending migrations of a runtime opened with `migrate: false` and returns their names.
 * The audit row is written only once they worked: before the first migration there is no audit
 * table to write to.
 */
export async function upgradeDatabase(ctx: Context): Promise<string[]> {
  const startedAt = ctx.clock();
  const applied = await migrate(ctx.store);
  if (applied.length > 0) {
    await recordCliAction(ctx, { command: 'db upgrade', detail: applied.join(', ') }, startedAt);
  }
  return applied;
}

/** Records this node so that policies and periodic tasks can name it. */
async function registerNode(rt: Runtime): Promise<void> {
  const now = rt.clock().toISOString();
  const existing = await rt.store.db
    .selectFrom('node')
    .select('name')
    .where('name', '=', rt.node)
    .executeTakeFirst();
  if (existing) {
    await rt.store.db.updateTable('node').set({ last_seen: now }).where('name', '=', rt.node).execute();
  } else {
    await rt.store.db
      .insertInto('node')
      .values({ name: rt.node, uuid: rt.random.uuid(), last_seen: now })
      .execute()
      .catch(() => undefined); // another process registered the same node name at the same moment
  }
}

/**
 * The files settings may name: those of the data directory and of files.allowed_dirs, never the
 * server's own (keys, database, configuration file, TLS key, key password).
 */
function allowedFiles(config: Config, dataDir: string, databaseUrl: string): AllowedFiles {
  const own = [
    ...keyFiles(dataDir),
    ...databaseFiles(databaseUrl, dataDir),
    config.sourceFile,
    config.security.keyPasswordFile,
    config.metrics.tokenFile,
    config.http.tlsKey,
  ];
  return new AllowedFiles({
    allowedDirs: [dataDir, ...config.files.allowedDirs],
    ownFiles: own.filter((f): f is string => f !== undefined && f !== ''),
    maxBytes: config.files.maxBytes,
    maxBytesSetting: 'files.max_bytes',
  });
}

/** A password file holds one line; anything much longer is not one. */
const MAX_KEY_PASSWORD_FILE_BYTES = 64 * 1024;

/** The password of a protected encryption key: the first line of security.key_password_file. */
function readKeyPassword(file: string): string {
  let text: string;
  try {
    text = readRegularFile(file, 'security.key_password_file', MAX_KEY_PASSWORD_FILE_BYTES).toString('utf8');
  } catch (e) {
    throw new HsmError((e as Error).message); // it names the setting, the file and what is wrong
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new HsmError(`security.key_password_file ${file} is empty`);
  return password;
}
