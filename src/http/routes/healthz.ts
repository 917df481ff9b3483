import { sql } from 'kysely';
import type { Runtime } from '../../core/context.ts';
import type { RouteTable } from '../route.ts';

async function databaseReachable(rt: Runtime): Promise<boolean> {
  try {
    await sql`select 1`.execute(rt.store.db);
    return true;
  } catch {
    return false;
  }
}

const PROBE = { audit: false } as const;

export function healthRoutes(r: RouteTable): void {
  r.add('get', '/healthz/livez', PROBE, () => ({ value: { status: 'OK' } }));
  r.add('get', '/healthz/startupz', PROBE, () => ({ value: 'started' }));
  r.add('get', '/healthz/readyz', PROBE, async ({ rt, setStatus }) => {
    const ready = rt.hsm.isReady() && (await databaseReachable(rt));
    if (!ready) setStatus(503);
    return { value: ready ? 'ready' : 'not ready' };
  });
  // Liveness and readiness in one answer, with the reason when not ready.
  r.add('get', '/healthz', PROBE, async ({ rt, setStatus }) => {
    const database = await databaseReachable(rt);
    const hsm = rt.hsm.isReady();
    if (!database || !hsm) setStatus(503);
    return {
      value: {
        status: database && hsm ? 'OK' : 'not ready',
        database: database ? 'ok' : 'unreachable',
        hsm: hsm ? 'ready' : 'locked',
        node: rt.node,
      },
    };
  });
}
