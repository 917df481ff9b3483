// /event/ (reference 7.1, spec "Event handling endpoints"): event handling definitions, the
// handler modules with their positions, actions and conditions, and the events the endpoints fire.
import {
  deleteEventDefinition,
  handlerActions,
  handlerConditions,
  handlerModules,
  handlerPositions,
  listEventDefinitions,
  saveEventDefinition,
  setEventDefinitionActive,
} from '../../core/event/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { adminRoute, availableEvents, type Handler, type RouteTable } from '../route.ts';

const READ = adminRoute('eventhandling_read');
const WRITE = adminRoute('eventhandling_write');

export function eventRoutes(r: RouteTable): void {
  r.add('get', '/event/available', READ, () => ({ value: availableEvents() }));
  r.add('get', '/event/handlermodules', READ, () => ({ value: handlerModules() }));
  r.add('get', '/event/positions/:handlermodule', READ, about(handlerPositions));
  r.add('get', '/event/actions/:handlermodule', READ, ({ rt, params }) => ({
    value: handlerActions(params.required('handlermodule'), rt.config),
  }));
  r.add('get', '/event/conditions/:handlermodule', READ, about(handlerConditions));
  r.add('get', ['/event/', '/event/:eventid'], READ, list);
  r.add('post', '/event', WRITE, save);
  r.add('post', '/event/enable/:eventid', WRITE, activate(true));
  r.add('post', '/event/disable/:eventid', WRITE, activate(false));
  r.add('delete', '/event/:eventid', WRITE, remove);
}

/** A path or form id: a whole number. */
function eventId(params: Params, name: string): number {
  const text = params.required(name);
  if (!/^\d+$/.test(text)) throw new ParameterError(`${name} must be a number.`);
  return Number(text);
}

const about =
  (describe: (module: string) => unknown): Handler =>
  ({ params }) => ({ value: describe(params.required('handlermodule')) });

const list: Handler = async ({ rt, params }) => ({
  value: await listEventDefinitions(rt, params.nonEmpty('eventid') ? eventId(params, 'eventid') : undefined),
});

/** The `option.<key>` parameters, keyed without the prefix. */
function optionsOf(params: Params): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(params.strings())) {
    if (name.startsWith('option.')) out[name.slice('option.'.length)] = value;
  }
  return out;
}

function ordering(params: Params): number | undefined {
  const text = params.nonEmpty('ordering');
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text)) throw new ParameterError('ordering must be an integer.');
  return Number(text);
}

const save: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  const id = await saveEventDefinition(context(), {
    id: params.nonEmpty('id') ? eventId(params, 'id') : undefined,
    name,
    event: params.required('event'),
    handlermodule: params.required('handlermodule'),
    action: params.required('action'),
    position: params.nonEmpty('position'),
    ordering: ordering(params),
    active: params.has('active') ? params.bool('active') : undefined,
    conditions: params.values.conditions,
    options: optionsOf(params),
  });
  return { value: id };
};

const activate =
  (active: boolean): Handler =>
  async ({ params, context, audit }) => {
    const id = eventId(params, 'eventid');
    audit.info = String(id);
    return { value: await setEventDefinitionActive(context(), id, active) };
  };

const remove: Handler = async ({ params, context, audit }) => {
  const id = eventId(params, 'eventid');
  audit.info = String(id);
  return { value: await deleteEventDefinition(context(), id) };
};
