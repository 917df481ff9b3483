// Periodic task definitions (/periodictask/, reference 7.2): name, active, retry_if_failed, a cron
// interval, the nodes the task runs on, its task module with options, and ordering. A definition is
// checked whole (cron syntax by croner, the module's options by the module) before anything is
// written; an update (id given) replaces the definition and its options completely.
import { Cron } from 'croner';
import type { Insertable, Transaction } from 'kysely';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { type Database, type Dialect, isUniqueViolation, runTransaction } from '../../store/index.ts';
import { parseOptions, taskModule, taskModuleNames } from '../../task-modules/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { checkName } from '../plugin-settings/index.ts';
import { formatTimestamp } from './timestamp.ts';

/** What a request gives of a definition, as text (options also as an object). */
export interface TaskInput {
  id?: string | undefined;
  name?: string | undefined;
  active?: string | undefined;
  retry_if_failed?: string | undefined;
  interval?: string | undefined;
  nodes?: string | undefined;
  taskmodule?: string | undefined;
  ordering?: string | undefined;
  options?: string | Record<string, unknown> | undefined;
}

/** A stored definition as the scheduler uses it. */
export interface PeriodicTask {
  id: number;
  name: string;
  active: boolean;
  retryIfFailed: boolean;
  interval: string;
  nodes: string[];
  taskmodule: string;
  ordering: number;
  options: Record<string, string>;
  /** ISO-8601 UTC. */
  lastUpdate: string;
  /** node → ISO-8601 UTC of its last run. */
  lastRuns: Record<string, string>;
}

/** GET /periodictask/'s view of a definition (privacyIDEA's keys and timestamp format). */
export interface TaskView {
  id: number;
  name: string;
  active: boolean;
  retry_if_failed: boolean;
  interval: string;
  nodes: string[];
  taskmodule: string;
  ordering: number;
  options: Record<string, string>;
  last_update: string;
  last_runs: Record<string, string>;
}

export function viewOf(t: PeriodicTask): TaskView {
  const lastRuns: Record<string, string> = {};
  for (const [node, at] of Object.entries(t.lastRuns)) lastRuns[node] = formatTimestamp(new Date(at));
  return {
    id: t.id,
    name: t.name,
    active: t.active,
    retry_if_failed: t.retryIfFailed,
    interval: t.interval,
    nodes: t.nodes,
    taskmodule: t.taskmodule,
    ordering: t.ordering,
    options: t.options,
    last_update: formatTimestamp(new Date(t.lastUpdate)),
    last_runs: lastRuns,
  };
}

// ---------------------------------------------------------------------------------------------
// Checking a request.

const TRUE = new Set(['true', '1']);
const FALSE = new Set(['false', '0']);

function boolField(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new ParameterError(`The parameter '${name}' must be true or false, not '${value}'`);
}

function required(name: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw ParameterError.missing(name);
  return value.trim();
}

/** A cron expression croner accepts (5 fields, or 6 with seconds first). */
export function checkInterval(value: string): string {
  checkLength('interval', value, LIMITS.name);
  try {
    new Cron(value, { paused: true });
  } catch (e) {
    throw new ParameterError(`Invalid interval '${value}': ${(e as Error).message}`);
  }
  return value;
}

function checkNodes(value: string): string[] {
  checkLength('nodes', value, LIMITS.description);
  const nodes = [
    ...new Set(
      value
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== ''),
    ),
  ];
  if (nodes.length === 0) throw new ParameterError('The parameter nodes must name at least one node');
  for (const n of nodes) checkName('node', n);
  return nodes;
}

function checkOrdering(value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > 2 ** 31 - 1)
    throw new ParameterError(`The parameter 'ordering' must be a whole number ≥ 0, not '${value}'`);
  return n;
}

/** options as an object or its JSON text; every value kept as text. */
function optionsOf(value: TaskInput['options']): Record<string, string> {
  if (value === undefined || value === '') return {};
  let obj: unknown = value;
  if (typeof value === 'string') {
    try {
      obj = JSON.parse(value);
    } catch {
      throw new ParameterError('The parameter options must be a JSON object');
    }
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw new ParameterError('The parameter options must be a JSON object');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || typeof v === 'object') throw new ParameterError(`Option '${k}' must be a single value`);
    checkLength(`option ${k}`, String(v), LIMITS.description);
    out[k] = String(v);
  }
  return out;
}

function idOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new ParameterError(`Invalid periodic task id '${value}'`);
  return Number(value);
}

/** The checked definition of a request, or a ParameterError before anything is written. */
function definitionOf(input: TaskInput) {
  const name = required('name', input.name);
  checkName('periodic task', name);
  const module = taskModule(required('taskmodule', input.taskmodule));
  const options = optionsOf(input.options);
  parseOptions(module, options);
  return {
    id: idOf(input.id),
    name,
    active: boolField('active', input.active, true),
    retry_if_failed: boolField('retry_if_failed', input.retry_if_failed, true),
    interval: checkInterval(required('interval', input.interval)),
    nodes: checkNodes(required('nodes', input.nodes)),
    taskmodule: module.name,
    ordering: checkOrdering(required('ordering', input.ordering)),
    options,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading.

type Executor = Runtime['store']['db'] | Transaction<Database>;

async function load(db: Executor, id?: number): Promise<PeriodicTask[]> {
  let q = db.selectFrom('periodictask').selectAll().orderBy('ordering').orderBy('id');
  if (id !== undefined) q = q.where('id', '=', id);
  const rows = await q.execute();
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [options, runs] = await Promise.all([
    db.selectFrom('periodictask_option').selectAll().where('task_id', 'in', ids).orderBy('key').execute(),
    db.selectFrom('periodictask_lastrun').selectAll().where('task_id', 'in', ids).orderBy('node').execute(),
  ]);
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    active: Number(r.active) === 1,
    retryIfFailed: Number(r.retry_if_failed) === 1,
    interval: r.interval,
    nodes: r.nodes.split(','),
    taskmodule: r.taskmodule,
    ordering: Number(r.ordering),
    options: Object.fromEntries(options.filter((o) => o.task_id === r.id).map((o) => [o.key, o.value])),
    lastUpdate: r.last_update,
    lastRuns: Object.fromEntries(runs.filter((l) => l.task_id === r.id).map((l) => [l.node, l.timestamp])),
  }));
}

/** Every definition, in ordering. */
export async function listPeriodicTasks(rt: Runtime): Promise<PeriodicTask[]> {
  return load(rt.store.db);
}

/** One definition by id or name; unknown is ResourceNotFoundError. */
export async function getPeriodicTask(rt: Runtime, idOrName: string | number): Promise<PeriodicTask> {
  const id = typeof idOrName === 'number' ? idOrName : await idByName(rt.store.db, idOrName);
  const [task] = id === undefined ? [] : await load(rt.store.db, id);
  if (!task) throw new ResourceNotFoundError(`The periodic task ${idOrName} does not exist.`);
  return task;
}

/** An id given as digits, else the id of the task of that name. */
async function idByName(db: Executor, idOrName: string): Promise<number | undefined> {
  if (/^\d+$/.test(idOrName)) return Number(idOrName);
  const row = await db
    .selectFrom('periodictask')
    .select('id')
    .where('name', '=', idOrName)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/** GET /periodictask/taskmodules/. */
export function periodicTaskModules(): string[] {
  return taskModuleNames();
}

/** GET /periodictask/options/<module>: option → { type, required, description }. */
export function periodicTaskOptions(module: string) {
  return { ...taskModule(module).options };
}

/** GET /periodictask/nodes/: the nodes recorded in the database. */
export async function periodicTaskNodes(rt: Runtime): Promise<string[]> {
  const rows = await rt.store.db.selectFrom('node').select('name').orderBy('name').execute();
  return rows.map((r) => r.name);
}

// ---------------------------------------------------------------------------------------------
// Writing.

/** Inserts a task and returns the id the database gave this very insert. */
async function insertTask(
  trx: Transaction<Database>,
  dialect: Dialect,
  row: Insertable<Database['periodictask']>,
): Promise<number> {
  if (dialect === 'postgres') {
    const r = await trx.insertInto('periodictask').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(r.id);
  }
  const r = await trx.insertInto('periodictask').values(row).executeTakeFirstOrThrow();
  return Number(r.insertId);
}

/**
 * POST /periodictask/: creates the task, or with `id` replaces that task (options completely).
 * A second task of an existing name is refused. Returns the id.
 */
export async function setPeriodicTask(ctx: Context, input: TaskInput): Promise<number> {
  const def = definitionOf(input);
  const row = {
    name: def.name,
    active: def.active ? 1 : 0,
    retry_if_failed: def.retry_if_failed ? 1 : 0,
    interval: def.interval,
    nodes: def.nodes.join(','),
    taskmodule: def.taskmodule,
    ordering: def.ordering,
    last_update: ctx.clock().toISOString(),
  };
  try {
    return await runTransaction(ctx.store, async (trx) => {
      let id = def.id;
      if (id !== undefined) {
        const r = await trx.updateTable('periodictask').set(row).where('id', '=', id).executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0)
          throw new ResourceNotFoundError(`The periodic task ${id} does not exist.`);
        await trx.deleteFrom('periodictask_option').where('task_id', '=', id).execute();
      } else {
        id = await insertTask(trx, ctx.store.dialect, row);
      }
      const options = Object.entries(def.options).map(([key, value]) => ({ task_id: id, key, value }));
      if (options.length > 0) await trx.insertInto('periodictask_option').values(options).execute();
      return id;
    });
  } catch (e) {
    if (isUniqueViolation(e))
      throw new ParameterError(`A periodic task named ${def.name} exists already: give its id to replace it`);
    throw e;
  }
}

/** POST /periodictask/enable|disable/<id>: the id. */
export async function setPeriodicTaskActive(
  ctx: Context,
  idOrName: string,
  active: boolean,
): Promise<number> {
  const task = await getPeriodicTask(ctx, idOrName);
  await ctx.store.db
    .updateTable('periodictask')
    .set({ active: active ? 1 : 0, last_update: ctx.clock().toISOString() })
    .where('id', '=', task.id)
    .execute();
  return task.id;
}

/** DELETE /periodictask/<id>: the id; its options and last runs go with it. */
export async function deletePeriodicTask(ctx: Context, idOrName: string): Promise<number> {
  const task = await getPeriodicTask(ctx, idOrName);
  await runTransaction(ctx.store, async (trx) => {
    await trx.deleteFrom('periodictask_option').where('task_id', '=', task.id).execute();
    await trx.deleteFrom('periodictask_lastrun').where('task_id', '=', task.id).execute();
    await trx.deleteFrom('periodictask').where('id', '=', task.id).execute();
  });
  return task.id;
}

/**
 * `authsrv task set NAME`: creates the task of that name or replaces it completely (what is not
 * given takes its default). Returns the id.
 */
export async function savePeriodicTaskNamed(ctx: Context, input: Omit<TaskInput, 'id'>): Promise<number> {
  const name = required('name', input.name);
  const row = await ctx.store.db
    .selectFrom('periodictask')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirst();
  const existing = row ? Number(row.id) : undefined;
  return setPeriodicTask(ctx, { ...input, id: existing === undefined ? undefined : String(existing) });
}
