// The stored SMS gateway definitions: listing (secrets censored), create/update in one transaction,
// delete by name, delete one option or header. privacyIDEA answers a save and a delete with the
// gateway's id, and an option's delete with the number of rows deleted.
import type { Kysely, Transaction } from 'kysely';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { smsProvider } from '../../gateways/sms/index.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { CENSORED } from '../system/index.ts';
import {
  type DefinitionRequest,
  definitionToSave,
  ENTRY_TYPES,
  type EntryType,
  isSecretKey,
  type OpenDefinition,
} from './definition.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** A gateway as GET /smsgateway/ shows it (privacyIDEA's as_dict), secrets as __CENSORED__. */
export interface SmsGatewayView {
  id: number;
  name: string;
  providermodule: string;
  description: string;
  options: Record<string, string>;
  headers: Record<string, string>;
}

const NOT_FOUND = 'The requested SMSGateway could not be found.';

type GatewayRow = Awaited<ReturnType<typeof gatewayRows>>[number];

function gatewayRows(db: Db, filter: { id?: number; name?: string }) {
  let q = db.selectFrom('smsgateway').selectAll().orderBy('name');
  if (filter.id !== undefined) q = q.where('id', '=', filter.id);
  if (filter.name !== undefined) q = q.where('name', '=', filter.name);
  return q.execute();
}

async function entryRows(db: Db, gatewayIds: number[]) {
  if (gatewayIds.length === 0) return [];
  return db
    .selectFrom('smsgateway_option')
    .selectAll()
    .where('gateway_id', 'in', gatewayIds)
    .orderBy('key')
    .execute();
}

/** The views of gateways, each with its options and headers (censored). */
async function views(db: Db, rows: GatewayRow[]): Promise<SmsGatewayView[]> {
  const entries = await entryRows(
    db,
    rows.map((r) => Number(r.id)),
  );
  return rows.map((r) => {
    const view: SmsGatewayView = {
      id: Number(r.id),
      name: r.name,
      providermodule: r.providermodule,
      description: r.description,
      options: {},
      headers: {},
    };
    for (const e of entries.filter((e) => Number(e.gateway_id) === Number(r.id))) {
      (e.type === 'header' ? view.headers : view.options)[e.key] = Number(e.sealed) ? CENSORED : e.value;
    }
    return view;
  });
}

/**
 * GET /smsgateway/[<gwid>]: every gateway, or the one of an id. A gwid that is not a number is
 * taken as a name (an addition: privacyIDEA knows ids only). Unknown: an empty list.
 */
export async function listSmsGateways(rt: Runtime, gwid?: string): Promise<SmsGatewayView[]> {
  if (gwid === undefined || gwid === '') return views(rt.store.db, await gatewayRows(rt.store.db, {}));
  checkLength('gwid', gwid, LIMITS.name);
  const filter = /^\d{1,15}$/.test(gwid) ? { id: Number(gwid) } : { name: gwid };
  return views(rt.store.db, await gatewayRows(rt.store.db, filter));
}

/** The definition of a gateway row, secrets decrypted. */
async function openDefinition(rt: Runtime, db: Db, row: GatewayRow): Promise<OpenDefinition> {
  const settings: OpenDefinition['settings'] = { option: {}, header: {} };
  for (const e of await entryRows(db, [Number(row.id)])) {
    const type: EntryType = e.type === 'header' ? 'header' : 'option';
    settings[type][e.key] = Number(e.sealed) ? rt.hsm.decrypt(e.value) : e.value;
  }
  return { module: row.providermodule, settings };
}

/** A gateway by name with its definition in clear, for sending; undefined when there is none. */
export async function openGateway(
  rt: Runtime,
  name: string,
): Promise<{ id: number; name: string; definition: OpenDefinition } | undefined> {
  const [row] = await gatewayRows(rt.store.db, { name });
  if (!row) return undefined;
  return { id: Number(row.id), name: row.name, definition: await openDefinition(rt, rt.store.db, row) };
}

export interface SaveSmsGatewayRequest extends DefinitionRequest {
  name: string;
  /** Omitted: kept on an update, empty on a new gateway. */
  description?: string | undefined;
}

function checkGatewayName(name: string): void {
  if (name.trim() === '') throw ParameterError.missing('name');
  checkLength('name', name, LIMITS.name);
  if (name.includes('/') || name.includes('\u0000') || name !== name.trim()) {
    throw new ParameterError(`Invalid SMS gateway name '${name}': no '/', NUL or surrounding blanks`);
  }
}

async function writeEntries(rt: Runtime, trx: Transaction<Database>, id: number, d: OpenDefinition) {
  await trx.deleteFrom('smsgateway_option').where('gateway_id', '=', id).execute();
  for (const type of ENTRY_TYPES) {
    for (const [key, value] of Object.entries(d.settings[type])) {
      const sealed = isSecretKey(type, key);
      await trx
        .insertInto('smsgateway_option')
        .values({
          gateway_id: id,
          type,
          key,
          value: sealed ? rt.hsm.encrypt(value) : value,
          sealed: sealed ? 1 : 0,
        })
        .execute();
    }
  }
}

/** Creates or updates the gateway in the transaction `trx`. */
async function saveIn(
  ctx: Context,
  trx: Transaction<Database>,
  request: SaveSmsGatewayRequest,
): Promise<{ id: number; created: boolean }> {
  const now = ctx.clock().toISOString();
  const [row] = await gatewayRows(trx, { name: request.name });
  const stored = row ? await openDefinition(ctx, trx, row) : undefined;
  const d = definitionToSave(ctx, request, stored);
  let id: number;
  if (row) {
    id = Number(row.id);
    const description = request.description ?? row.description;
    await trx
      .updateTable('smsgateway')
      .set({ providermodule: d.module, description, updated_at: now })
      .where('id', '=', id)
      .execute();
  } else {
    await trx
      .insertInto('smsgateway')
      .values({
        name: request.name,
        providermodule: d.module,
        description: request.description ?? '',
        updated_at: now,
      })
      .execute();
    const [created] = await gatewayRows(trx, { name: request.name });
    id = Number(created!.id);
  }
  await writeEntries(ctx, trx, id, d);
  return { id, created: !row };
}

/** POST /smsgateway: creates or updates the gateway of a name, in one transaction; its id. */
export async function saveSmsGateway(
  ctx: Context,
  request: SaveSmsGatewayRequest,
): Promise<{ id: number; created: boolean }> {
  checkGatewayName(request.name);
  checkLength('description', request.description, LIMITS.description);
  try {
    return await runTransaction(ctx.store, (trx) => saveIn(ctx, trx, request));
  } catch (e) {
    // A concurrent request created the same name first (unique name): this one is then an update.
    const [raced] = await gatewayRows(ctx.store.db, { name: request.name });
    if (!raced || e instanceof ParameterError) throw e;
    return runTransaction(ctx.store, (trx) => saveIn(ctx, trx, request));
  }
}

/** DELETE /smsgateway/<name>: the deleted gateway's id; an unknown name is an error. */
export async function deleteSmsGateway(ctx: Context, name: string): Promise<number> {
  return runTransaction(ctx.store, async (trx) => {
    const [row] = await gatewayRows(trx, { name });
    if (!row) throw new ResourceNotFoundError(NOT_FOUND);
    const id = Number(row.id);
    await trx.deleteFrom('smsgateway_option').where('gateway_id', '=', id).execute();
    await trx.deleteFrom('smsgateway').where('id', '=', id).execute();
    return id;
  });
}

/**
 * DELETE /smsgateway/option/<gwid>/<key>: deletes an option, or a header with `header.<name>`;
 * the number deleted (0 when there was none). A required option of the provider is not deleted.
 */
export async function deleteSmsGatewayOption(ctx: Context, gwid: string, key: string): Promise<number> {
  if (!/^\d{1,15}$/.test(gwid))
    throw new ParameterError(`gwid must be the id of an SMS gateway, not '${gwid}'`);
  checkLength('key', key, LIMITS.name + 'header.'.length);
  const header = key.startsWith('header.');
  const type: EntryType = header ? 'header' : 'option';
  const name = header ? key.slice('header.'.length) : key;
  return runTransaction(ctx.store, async (trx) => {
    const [row] = await gatewayRows(trx, { id: Number(gwid) });
    if (!row) throw new ResourceNotFoundError(NOT_FOUND);
    if (type === 'option' && smsProvider(row.providermodule).parameters[name]?.required) {
      throw new ParameterError(
        `The option ${name} is required by ${row.providermodule} and cannot be deleted`,
      );
    }
    const result = await trx
      .deleteFrom('smsgateway_option')
      .where('gateway_id', '=', Number(row.id))
      .where('type', '=', type)
      .where('key', '=', name)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) > 0) {
      await trx
        .updateTable('smsgateway')
        .set({ updated_at: ctx.clock().toISOString() })
        .where('id', '=', row.id)
        .execute();
    }
    return Number(result.numDeletedRows);
  });
}
