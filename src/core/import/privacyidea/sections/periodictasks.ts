// Periodic tasks (periodictask + periodictaskoption). The nodes are privacyIDEA's node names: a task
// runs on the authsrv nodes of those names (node_name). When each ran last (periodictasklastrun) is
// not carried over: a task runs at its next due time.
import { setPeriodicTask, type TaskInput } from '../../../periodictask/index.ts';
import { keyValuesByOwner, namesIn, type Planned, piBool, piText, serviceSection } from './common.ts';

const bool = (v: unknown) => (piBool(v) ? 'True' : 'False');

export const periodicTaskSection = serviceSection<TaskInput>({
  name: 'periodictasks',
  async read({ source }) {
    const options = await keyValuesByOwner(source.db, 'periodictaskoption', 'periodictask_id', {
      key: 'key',
      value: 'value',
    });
    const rows = await source.db
      .selectFrom('periodictask')
      .selectAll()
      .orderBy('ordering')
      .orderBy('id')
      .execute();
    return rows.map((r): Planned<TaskInput> => {
      const name = piText(r.name);
      const input: TaskInput = {
        name,
        active: bool(r.active),
        retry_if_failed: bool(r.retry_if_failed),
        interval: piText(r.interval),
        nodes: piText(r.nodes),
        taskmodule: piText(r.taskmodule),
        ordering: piText(r.ordering),
        options: Object.fromEntries((options.get(Number(r.id)) ?? []).map((o) => [o.key, o.value])),
      };
      return { object: name, item: input };
    });
  },
  existing: namesIn('periodictask', 'name'),
  write: (ctx, input) => setPeriodicTask(ctx, input),
});
