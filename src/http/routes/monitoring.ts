// /monitoring/ (reference 7.3, spec "Monitoring endpoints"): the stats keys, the values of a key
// in a window (start and end as core/monitoring reads them), its last value, deleting a window.
// privacyIDEA attaches no event to these endpoints (reference 7.1 "Event names"), so none fires.
import {
  deleteStatsValues,
  lastStatsValue,
  type StatsWindow,
  statsKeys,
  statsValues,
} from '../../core/monitoring/index.ts';
import { type ApiCall, adminRoute, type Handler, type RouteTable } from '../route.ts';

export function monitoringRoutes(r: RouteTable): void {
  r.add('get', '/monitoring/', adminRoute('statistics_read'), keys);
  r.add('get', '/monitoring/:stats_key/last', adminRoute('statistics_read'), last);
  r.add('get', '/monitoring/:stats_key', adminRoute('statistics_read'), values);
  r.add('delete', '/monitoring/:stats_key', adminRoute('statistics_delete'), remove);
}

/**
 * Reads the key of the path and the window, calls the service, and names the key in the audit
 * row once it answered (a failure's row holds the error message instead).
 */
function onKey<T>(service: (call: ApiCall, key: string, window: StatsWindow) => Promise<T>): Handler {
  return async (call) => {
    const key = call.params.required('stats_key');
    const window = { start: call.params.str('start'), end: call.params.str('end') };
    const value = await service(call, key, window);
    call.audit.info = key;
    return { value };
  };
}

const keys: Handler = async ({ rt }) => ({ value: await statsKeys(rt) });

const values = onKey(({ rt }, key, window) => statsValues(rt, key, window));

const last = onKey(({ rt }, key) => lastStatsValue(rt, key));

const remove = onKey((call, key, window) => deleteStatsValues(call.context(), key, window));
