// Service IDs: a unique name and a description. privacyIDEA answers POST with the id; the
// specification's value is 1, and the specification wins.
import type { Transaction } from 'kysely';
import { ConfigAdminError, ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';

export interface ServiceIdView {
  description: string;
  id: number;
}

/** GET /serviceid/[<name>]: name → {description, id}; a name filters (unknown: empty). */
export async function listServiceIds(rt: Runtime, name?: string): Promise<Record<string, ServiceIdView>> {
  let q = rt.store.db.selectFrom('serviceid').selectAll().orderBy('name');
  if (name) q = q.where('name', '=', name);
  const out: Record<string, ServiceIdView> = {};
  for (const row of await q.execute()) out[row.name] = { description: row.description, id: Number(row.id) };
  return out;
}

async function upsert(trx: Transaction<Database>, name: string, description: string | undefined) {
  const existing = await trx.selectFrom('serviceid').select('id').where('name', '=', name).executeTakeFirst();
  if (!existing) {
    await trx
      .insertInto('serviceid')
      .values({ name, description: description ?? '' })
      .execute();
  } else if (description !== undefined) {
    await trx.updateTable('serviceid').set({ description }).where('id', '=', existing.id).execute();
  }
}

/**
 * POST /serviceid/<name>: creates the service ID or changes its description (an omitted
 * description is kept; a new one gets an empty one). Returns 1.
 */
export async function setServiceId(ctx: Context, name: string, description: string | undefined): Promise<1> {
  const trimmed = name.trim();
  if (!trimmed) throw ParameterError.missing('name');
  checkLength('name', trimmed, LIMITS.name);
  checkLength('description', description, LIMITS.description);
  try {
    await runTransaction(ctx.store, (trx) => upsert(trx, trimmed, description));
  } catch (e) {
    // A concurrent request created it first (unique name): this one is then an update.
    const raced = await ctx.store.db
      .selectFrom('serviceid')
      .select('id')
      .where('name', '=', trimmed)
      .execute();
    if (raced.length === 0) throw e;
    await runTransaction(ctx.store, (trx) => upsert(trx, trimmed, description));
  }
  return 1;
}

/**
 * What uses a service ID, one phrase each (empty: nothing): applspec tokens, whose tokeninfo
 * `service_id` names it, and tokens attached to machines with a `service_id` option naming it
 * (SSH keys), both compared case-insensitively, as authentication compares them.
 */
export async function serviceIdUsers(trx: Transaction<Database>, name: string): Promise<string[]> {
  const tokens = await trx
    .selectFrom('tokeninfo')
    .innerJoin('token', 'token.id', 'tokeninfo.token_id')
    .select('token.serial')
    .where('tokeninfo.key', '=', 'service_id')
    .where((eb) => eb(eb.fn('lower', ['tokeninfo.value']), '=', name.toLowerCase()))
    .orderBy('token.serial')
    .execute();
  const attached = await trx
    .selectFrom('machinetoken_option as o')
    .innerJoin('machinetoken as mt', 'mt.id', 'o.machinetoken_id')
    .innerJoin('token', 'token.id', 'mt.token_id')
    .select(['token.serial', 'mt.application'])
    .where('o.key', '=', 'service_id')
    .where((eb) => eb(eb.fn('lower', ['o.value']), '=', name.toLowerCase()))
    .orderBy('token.serial')
    .execute();
  const out: string[] = [];
  if (tokens.length > 0) out.push(`token(s) ${tokens.map((t) => t.serial).join(', ')}`);
  if (attached.length > 0) {
    out.push(
      `machine token(s) ${[...new Set(attached.map((t) => `${t.serial} (${t.application})`))].join(', ')}`,
    );
  }
  return out;
}

/** DELETE /serviceid/<name>: 1; an unknown name, or one still in use, is an error. */
export async function deleteServiceId(ctx: Context, name: string): Promise<1> {
  return runTransaction(ctx.store, async (trx) => {
    const row = await trx.selectFrom('serviceid').select('id').where('name', '=', name).executeTakeFirst();
    if (!row) throw new ResourceNotFoundError(`The service ID ${name} does not exist.`);
    const users = await serviceIdUsers(trx, name);
    if (users.length > 0) {
      throw new ConfigAdminError(`The service ID ${name} is still used by ${users.join(' and ')}.`);
    }
    await trx.deleteFrom('serviceid').where('id', '=', row.id).execute();
    return 1 as const;
  });
}
