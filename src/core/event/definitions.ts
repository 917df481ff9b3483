// Event handling definitions (/event/, reference 7.1): stored in `eventhandler`, checked against
// the handler module's positions and actions and the known conditions before anything is written,
// and kept in memory behind the event change counter, so that firing an event with no definitions
// costs no statement beyond the counters' read the request makes anyway.
import type { Selectable, Transaction } from 'kysely';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import {
  actionsOf,
  type EventHandlerModule,
  type EventPosition,
  type EventSettings,
  eventHandlerModule,
} from '../../event-handlers/index.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import {
  bumpCounter,
  CountedCache,
  EVENT_VERSION_ROW,
  forgetCounters,
  recentCounters,
} from '../change-counters.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { checkConditionValue, conditionNames } from './conditions.ts';

/** A definition as GET /event/ shows it. */
export interface EventDefinition {
  id: number;
  name: string;
  active: boolean;
  event: string[];
  handlermodule: string;
  action: string;
  position: EventPosition;
  ordering: number;
  options: Record<string, string>;
  conditions: Record<string, string>;
  /** privacyIDEA's legacy single condition, always empty. */
  condition: string;
}

/** What POST /event takes. */
export interface EventDefinitionInput {
  id?: number | undefined;
  name: string;
  event: string;
  handlermodule: string;
  action: string;
  position?: string | undefined;
  ordering?: number | undefined;
  active?: boolean | undefined;
  /** An object or its JSON text. */
  conditions?: unknown;
  options: Record<string, string>;
}

const NOT_FOUND = (id: number) =>
  new ResourceNotFoundError(`The event handling definition ${id} does not exist.`);

function knownModule(name: string): EventHandlerModule {
  const module = eventHandlerModule(name);
  if (!module) throw new ParameterError(`Unknown handler module: ${name}`);
  return module;
}

/** The conditions as a map of text values: an object or its JSON text, with known names only. */
function parseConditions(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null || raw === '') return {};
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new ParameterError('conditions must be a JSON object.');
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new ParameterError('conditions must be a JSON object.');
  }
  const known = new Set(conditionNames());
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(value)) {
    if (!known.has(name)) throw new ParameterError(`Unknown condition: ${name}`);
    if (typeof v === 'object' && v !== null)
      throw new ParameterError(`The condition ${name} must be a text.`);
    out[name] = String(v);
    checkConditionValue(name, out[name]);
  }
  return out;
}

function parsePosition(module: EventHandlerModule, position: string | undefined): EventPosition {
  const p = position || 'post';
  if (!(module.positions as readonly string[]).includes(p)) {
    throw new ParameterError(`The handler module ${module.name} has no position ${p}.`);
  }
  return p as EventPosition;
}

/** The options of an action: required ones present, unknown ones refused. */
function checkOptions(
  module: EventHandlerModule,
  action: string,
  options: Record<string, string>,
  settings: EventSettings,
): void {
  const specs = actionsOf(module, settings)[action];
  if (!specs) throw new ParameterError(`The handler module ${module.name} has no action ${action}.`);
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.required && (options[name] ?? '') === '') {
      throw new ParameterError(`The action ${action} needs the option ${name}.`);
    }
  }
  for (const name of Object.keys(options)) {
    if (!Object.hasOwn(specs, name)) throw new ParameterError(`The action ${action} has no option ${name}.`);
    checkLength(`option.${name}`, options[name], LIMITS.text);
  }
  try {
    module.checkOptions?.(action, options);
  } catch (e) {
    throw new ParameterError(e instanceof Error ? e.message : String(e));
  }
}

function eventNames(list: string): string[] {
  const names = list
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (names.length === 0) throw ParameterError.missing('event');
  return [...new Set(names)];
}

type Row = Selectable<Database['eventhandler']>;

function toView(row: Row): EventDefinition {
  return {
    id: Number(row.id),
    name: row.name,
    active: Number(row.active) === 1,
    event: row.events.split(',').filter(Boolean),
    handlermodule: row.handlermodule,
    action: row.action,
    position: row.position as EventPosition,
    ordering: Number(row.ordering),
    options: JSON.parse(row.options) as Record<string, string>,
    conditions: JSON.parse(row.conditions) as Record<string, string>,
    condition: '',
  };
}

async function loadDefinitions(rt: Runtime): Promise<EventDefinition[]> {
  const rows = await rt.store.db
    .selectFrom('eventhandler')
    .selectAll()
    .orderBy('ordering')
    .orderBy('id')
    .execute();
  return rows.map(toView);
}

const cached = new CountedCache<EventDefinition[]>((c) => c.event, recentCounters);

/** Every definition, ordered by `ordering` (then id), from memory unless the event counter moved. */
export function eventDefinitions(rt: Runtime): Promise<EventDefinition[]> {
  return cached.get(rt.store, () => loadDefinitions(rt));
}

/** GET /event/[<id>]: the definitions, or the one of an id in a list (an unknown id: empty). */
export async function listEventDefinitions(rt: Runtime, id?: number): Promise<EventDefinition[]> {
  const all = await loadDefinitions(rt);
  return id === undefined ? all : all.filter((d) => d.id === id);
}

async function changed(ctx: Context, work: (trx: Transaction<Database>) => Promise<number>): Promise<number> {
  const id = await runTransaction(ctx.store, async (trx) => {
    const out = await work(trx);
    await bumpCounter(trx, ctx.store, EVENT_VERSION_ROW);
    return out;
  });
  cached.forget(ctx.store);
  forgetCounters(ctx.store);
  return id;
}

/**
 * POST /event: creates a definition, or with an id replaces the one of that id whole (its options
 * and conditions included). Everything is checked before anything is written. Returns the id.
 */
export async function saveEventDefinition(ctx: Context, input: EventDefinitionInput): Promise<number> {
  const name = input.name.trim();
  if (!name) throw ParameterError.missing('name');
  checkLength('name', name, LIMITS.name);
  const module = knownModule(input.handlermodule);
  const position = parsePosition(module, input.position);
  checkOptions(module, input.action, input.options, ctx.config.event);
  const conditions = parseConditions(input.conditions);
  const ordering = input.ordering ?? 0;
  if (!Number.isSafeInteger(ordering) || Math.abs(ordering) > 2 ** 31 - 1) {
    throw new ParameterError('ordering must be an integer.');
  }
  const values = {
    name,
    events: eventNames(input.event).join(','),
    handlermodule: module.name,
    action: input.action,
    ordering,
    position,
    conditions: JSON.stringify(conditions),
    options: JSON.stringify(input.options),
    active: input.active === false ? 0 : 1,
  };
  checkLength('event', values.events, LIMITS.description);
  // Stored as JSON in TEXT columns (MariaDB: 65535 bytes, 4 per character at most).
  checkLength('options', values.options, LIMITS.text);
  checkLength('conditions', values.conditions, LIMITS.text);
  return changed(ctx, async (trx) => {
    if (input.id === undefined) {
      if (ctx.store.dialect === 'postgres') {
        const row = await trx
          .insertInto('eventhandler')
          .values(values)
          .returning('id')
          .executeTakeFirstOrThrow();
        return Number(row.id);
      }
      const row = await trx.insertInto('eventhandler').values(values).executeTakeFirstOrThrow();
      return Number(row.insertId);
    }
    const done = await trx
      .updateTable('eventhandler')
      .set(values)
      .where('id', '=', input.id)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw NOT_FOUND(input.id);
    return input.id;
  });
}

/** POST /event/enable|disable/<id>: the id. */
export function setEventDefinitionActive(ctx: Context, id: number, active: boolean): Promise<number> {
  return changed(ctx, async (trx) => {
    const row = await trx.selectFrom('eventhandler').select('id').where('id', '=', id).executeTakeFirst();
    if (!row) throw NOT_FOUND(id);
    await trx
      .updateTable('eventhandler')
      .set({ active: active ? 1 : 0 })
      .where('id', '=', id)
      .execute();
    return id;
  });
}

/** DELETE /event/<id>: the id. */
export function deleteEventDefinition(ctx: Context, id: number): Promise<number> {
  return changed(ctx, async (trx) => {
    const done = await trx.deleteFrom('eventhandler').where('id', '=', id).executeTakeFirst();
    if (Number(done.numDeletedRows) === 0) throw NOT_FOUND(id);
    return id;
  });
}
