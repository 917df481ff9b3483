// The health probes (/healthz/…): unaudited, so that monitoring does not flood the log. Whether
// the node is ready is the system service's answer; this file only renders it.
import { health, isReady } from '../../core/system/index.ts';
import type { Handler, RouteTable } from '../route.ts';

export function healthRoutes(r: RouteTable): void {
  r.add('get', '/healthz/livez', PROBE, () => ({ value: { status: 'OK' } }));
  r.add('get', '/healthz/startupz', PROBE, () => ({ value: 'started' }));
  r.add('get', '/healthz/readyz', PROBE, readiness);
  r.add('get', '/healthz', PROBE, liveAndReady);
}

const PROBE = { audit: false } as const;
const NOT_READY = 503;

const readiness: Handler = async ({ rt, setStatus }) => {
  const ready = await isReady(rt);
  if (!ready) setStatus(NOT_READY);
  return { value: ready ? 'ready' : 'not ready' };
};

/** Liveness and readiness in one answer, with the reason when not ready. */
const liveAndReady: Handler = async ({ rt, setStatus }) => {
  const h = await health(rt);
  if (!h.ready) setStatus(NOT_READY);
  return {
    value: {
      status: h.ready ? 'OK' : 'not ready',
      database: h.database ? 'ok' : 'unreachable',
      hsm: h.hsm ? 'ready' : 'locked',
      node: rt.node,
    },
  };
};
