// The CLI environment of a describe block: created before its tests (or before each), with the
// CLI operator's context on its runtime, and closed after them; and the user store most CLI token
// tests start from.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { setRealm } from '../../src/core/realm/realm.ts';
import { saveResolver } from '../../src/core/resolver/resolver.ts';
import { type CliEnv, cliEnv } from './cli.ts';
import type { DialectName } from './dialects.ts';
import { type PasswdEntry, writePasswdFile } from './user-stores.ts';

export interface CliFixture {
  c: CliEnv;
  /** The CLI operator on an in-process runtime of the same data directory. */
  ctx: Context;
}

/**
 * Registers the hooks of a CLI environment on `dialect`, new for each test (`'each'`) or one for
 * the whole block (`'all'`); `bind` receives it before any later hook of the block runs.
 */
export function useCliEnv(dialect: DialectName, per: 'each' | 'all', bind: (f: CliFixture) => void): void {
  let c: CliEnv | undefined;
  (per === 'each' ? beforeEach : beforeAll)(async () => {
    c = await cliEnv(dialect);
    bind({ c, ctx: withCaller(await c.runtime(), localOperator()) });
  });
  (per === 'each' ? afterEach : afterAll)(async () => c?.close());
}

/** Creates the passwd-file resolver `files` holding `users` and the realm `main` on it. */
export async function filesRealm({ c, ctx }: CliFixture, users: PasswdEntry[]): Promise<void> {
  const passwd = await writePasswdFile(c.dataDir, 'passwd', users);
  await saveResolver(ctx, 'files', { type: 'passwdresolver', Filename: passwd });
  await setRealm(ctx, 'main', ['files'], {});
}
