// /monitoring/ (reference 7.3, spec "Monitoring endpoints"): the stats keys, the values of a key
// in a window (start and end as core/monitoring reads them), its last value, deleting a window.
// privacyIDEA attaches no event to these endpoints (reference 7.1 "Event names"), so none fires.
import { deleteStatsValues, lastStatsValue, statsKeys, statsValues } from '../../core/monitoring/index.ts';
import { type ApiCall, adminRoute, type Handler, type RouteTable } from '../route.ts';

export function monitoringRoutes(r: RouteTable): void {
  r.add('get', '/monitoring/', adminRoute('statistics_read'), keys);
  r.add('get', '/monitoring/:stats_key/last', adminRoute('statistics_read'), last);
  r.add('get', '/monitoring/:stats_key', adminRoute('statistics_read'), values);
  r.add('delete', '/monitoring/:stats_key', adminRoute('statistics_delete'), remove);
}

/** The key of the path, named in the audit row. */
function statsKey({ params, audit }: ApiCall): string {
  const key = params.required('stats_key');
  audit.info = key;
  return key;
}

const keys: Handler = async ({ rt }) => ({ value: await statsKeys(rt) });

const values: Handler = async (call) => {
  const key = statsKey(call);
  const window = { start: call.params.str('start'), end: call.params.str('end') };
  return { value: await statsValues(call.rt, key, window) };
};

const last: Handler = async (call) => ({ value: await lastStatsValue(call.rt, statsKey(call)) });

const remove: Handler = async (call) => {
  const key = statsKey(call);
  const window = { start: call.params.str('start'), end: call.params.str('end') };
  return { value: await deleteStatsValues(call.context(), key, window) };
};
