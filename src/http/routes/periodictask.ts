// /periodictask/ (reference 7.2, spec "Periodic task endpoints"): periodic task definitions, their
// task modules with options, and the nodes tasks may name. privacyIDEA's events of these
// endpoints: periodictask_set (POST /), periodictask_enable, periodictask_disable,
// periodictask_delete; GET has none.
import {
  deletePeriodicTask,
  getPeriodicTask,
  listPeriodicTasks,
  periodicTaskModules,
  periodicTaskNodes,
  periodicTaskOptions,
  setPeriodicTask,
  setPeriodicTaskActive,
  viewOf,
} from '../../core/periodictask/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function periodictaskRoutes(r: RouteTable): void {
  r.add('get', '/periodictask/taskmodules/', adminRoute('periodictask_read'), modules);
  r.add('get', '/periodictask/nodes/', adminRoute('periodictask_read'), nodes);
  r.add('get', '/periodictask/options/:taskmodule', adminRoute('periodictask_read'), options);
  r.add('get', '/periodictask/', adminRoute('periodictask_read'), list);
  r.add('get', '/periodictask/:ptaskid', adminRoute('periodictask_read'), show);
  r.add('post', '/periodictask/', adminRoute('periodictask_write'), set);
  r.add('post', '/periodictask/enable/:ptaskid', adminRoute('periodictask_write'), activate(true));
  r.add('post', '/periodictask/disable/:ptaskid', adminRoute('periodictask_write'), activate(false));
  r.add('delete', '/periodictask/:ptaskid', adminRoute('periodictask_write'), remove);
}

const modules: Handler = async () => ({ value: periodicTaskModules() });

const nodes: Handler = async ({ rt }) => ({ value: await periodicTaskNodes(rt) });

const options: Handler = async ({ params }) => ({
  value: periodicTaskOptions(params.required('taskmodule')),
});

const list: Handler = async ({ rt }) => ({ value: (await listPeriodicTasks(rt)).map(viewOf) });

const show: Handler = async ({ rt, params, audit }) => {
  const id = params.required('ptaskid');
  audit.info = id;
  return { value: viewOf(await getPeriodicTask(rt, id)) };
};

const set: Handler = async ({ params, context, audit }) => {
  const all = params.texts();
  audit.info = all.name ?? '';
  const id = await setPeriodicTask(context(), {
    id: all.id,
    name: all.name,
    active: all.active,
    retry_if_failed: all.retry_if_failed,
    interval: all.interval,
    nodes: all.nodes,
    taskmodule: all.taskmodule,
    ordering: all.ordering,
    options: all.options,
  });
  return { value: id };
};

function activate(active: boolean): Handler {
  return async ({ params, context, audit }) => {
    const id = params.required('ptaskid');
    audit.info = id;
    return { value: await setPeriodicTaskActive(context(), id, active) };
  };
}

const remove: Handler = async ({ params, context, audit }) => {
  const id = params.required('ptaskid');
  audit.info = id;
  return { value: await deletePeriodicTask(context(), id) };
};
