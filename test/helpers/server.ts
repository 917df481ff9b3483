// A real authsrv server for a test: its own data directory and database, listening on a free
// port of 127.0.0.1, with the first administrator's password at hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.ts';
import { ensureInitialAdmin } from '../../src/core/auth/admins.ts';
import { localOperator, type Runtime, withCaller } from '../../src/core/context.ts';
import { closeUserStores } from '../../src/core/directory/user-stores.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { type RunningServer, startServer } from '../../src/http/server.ts';
import { createTestDatabase, type DialectName, type TestDatabase } from './dialects.ts';

export interface TestServer {
  url: string;
  rt: Runtime;
  dataDir: string;
  adminPassword: string;
  /** Logs in as the first administrator and returns the JWT. */
  adminToken(): Promise<string>;
  /** Calls the API; params go as a form body for POST/PUT/DELETE and as a query otherwise. */
  call(method: string, path: string, params?: Record<string, string>, token?: string): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiResponse {
  status: number;
  text: string;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  json: any;
}

export interface TestServerOptions {
  dialect?: DialectName;
  /** Configuration values by key, e.g. { 'security.sign_responses': 'false' }. */
  config?: Record<string, string>;
  clock?: () => Date;
  /** The server's logger (default: silent). */
  logger?: pino.Logger;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'authsrv-test-'));
  const db: TestDatabase = await createTestDatabase(options.dialect ?? 'sqlite', dataDir);
  const config = loadConfig({
    env: {},
    overrides: {
      data_dir: dataDir,
      database_url: db.url,
      'http.port': '0',
      node_name: 'test-node',
      // Tests make many failed logins on purpose: throttled only where a test turns it on.
      'throttle.enabled': 'false',
      ...options.config,
    },
  });
  const rt = await openRuntime(config, {
    logger: options.logger ?? pino({ level: 'silent' }),
    clock: options.clock,
    metrics: true,
  });
  const adminPassword = (await ensureInitialAdmin(withCaller(rt, localOperator())))!;
  let server: RunningServer;
  try {
    server = await startServer(rt);
  } catch (e) {
    await rt.store.close();
    throw e;
  }
  const call: TestServer['call'] = async (method, path, params = {}, token) => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (token) headers.Authorization = token;
    let url = server.url + path;
    let body: string | undefined;
    if (method === 'GET' || method === 'HEAD') {
      const q = new URLSearchParams(params).toString();
      if (q) url += (url.includes('?') ? '&' : '?') + q;
    } else {
      body = new URLSearchParams(params).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, text, headers: res.headers, json };
  };
  return {
    url: server.url,
    rt,
    dataDir,
    adminPassword,
    call,
    async adminToken() {
      const r = await call('POST', '/auth', { username: 'admin', password: adminPassword });
      if (r.status !== 200) throw new Error(`admin login failed: ${r.text}`);
      return r.json.result.value.token as string;
    },
    async close() {
      await server.close();
      await closeUserStores(rt);
      await rt.store.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
