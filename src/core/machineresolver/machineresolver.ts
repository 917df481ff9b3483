// Machine resolvers: named, typed settings saying where machines are listed (a hosts file, an
// LDAP directory). They are stored, merged, censored, sealed and tested exactly as user resolvers
// are (plugin-settings/): omitted parameters are kept, the type cannot change, secrets leave only as
// __CENSORED__ and are reused only for their destination.
import type { Transaction } from 'kysely';
import { ConfigAdminError, ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { machineResolverKind } from '../../machine-resolvers/index.ts';
import type { TestResult } from '../../resolvers/index.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import {
  censoredView,
  checkName,
  type SettingsView,
  secretSettingNames,
  settingsToSave,
  testBase,
  testSettings,
} from '../plugin-settings/index.ts';
import { dropMachineStore } from './stores.ts';

export type MachineResolverView = SettingsView;

/** Parameters of POST /machineresolver/… that are not settings. */
const NOT_SETTINGS = new Set(['resolver', 'type', 'nonce', 'name']);

/** The setting names a machine resolver type seals (for the CLI, which asks for them). */
export function machineResolverSecretNames(type: string): Set<string> {
  return secretSettingNames(machineResolverKind(type));
}

/** The stored machine resolver of a name (case-insensitive, as user resolvers). */
async function findRow(db: Runtime['store']['db'] | Transaction<Database>, name: string) {
  const rows = await db.selectFrom('machineresolver').selectAll().execute();
  return rows.find((r) => r.name.toLowerCase() === name.toLowerCase());
}

/** GET /machineresolver/: name → view, optionally of one type. */
export async function listMachineResolvers(
  rt: Runtime,
  filter: { type?: string | undefined } = {},
): Promise<Record<string, MachineResolverView>> {
  let q = rt.store.db.selectFrom('machineresolver').selectAll().orderBy('name');
  if (filter.type) q = q.where('type', '=', filter.type);
  const out: Record<string, MachineResolverView> = {};
  for (const r of await q.execute()) out[r.name] = censoredView(r.name, r.type, r.config);
  return out;
}

/** GET /machineresolver/<name>: the one resolver, or {} when there is none of that name. */
export async function getMachineResolver(
  rt: Runtime,
  name: string,
): Promise<Record<string, MachineResolverView>> {
  const row = await findRow(rt.store.db, name);
  return row ? { [row.name]: censoredView(row.name, row.type, row.config) } : {};
}

export interface SavedMachineResolver {
  id: number;
  /** The name as stored: an update keeps the spelling it was created with. */
  name: string;
  created: boolean;
  /** Settings accepted without effect, one sentence each. */
  warnings: string[];
}

/** POST /machineresolver/<name>: creates or updates a machine resolver, in one transaction. */
export async function saveMachineResolver(
  ctx: Context,
  name: string,
  params: Record<string, string>,
): Promise<SavedMachineResolver> {
  checkName('machine resolver', name);
  const now = ctx.clock().toISOString();
  return runTransaction(ctx.store, async (trx) => {
    const existing = await findRow(trx, name);
    const { type, config, warnings } = settingsToSave(ctx, {
      label: 'Machine resolver',
      name,
      existing,
      params,
      notSettings: NOT_SETTINGS,
      kindOf: machineResolverKind,
    });
    if (existing) {
      await trx
        .updateTable('machineresolver')
        .set({ config, updated_at: now })
        .where('id', '=', existing.id)
        .execute();
      return { id: Number(existing.id), name: existing.name, created: false, warnings };
    }
    await trx.insertInto('machineresolver').values({ name, type, config, updated_at: now }).execute();
    const row = await trx
      .selectFrom('machineresolver')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return { id: Number(row.id), name, created: true, warnings };
  });
}

/**
 * What refers to a machine resolver's machines, one phrase each (empty: nothing): the tokens
 * attached to its machines. A resolver in use is not deleted (its attachments would name a
 * resolver that no longer exists); detach the tokens first.
 */
export async function machineResolverUsers(trx: Transaction<Database>, name: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('machinetoken as mt')
    .innerJoin('machineresolver as mr', 'mr.id', 'mt.machineresolver_id')
    .innerJoin('token', 'token.id', 'mt.token_id')
    .select(['token.serial', 'mt.machine_id', 'mt.application'])
    .where('mr.name', '=', name)
    .orderBy('token.serial')
    .orderBy('mt.id')
    .execute();
  if (rows.length === 0) return [];
  return [
    `machine token(s) ${rows.map((r) => `${r.serial} on ${r.machine_id} (${r.application})`).join(', ')}`,
  ];
}

/** DELETE /machineresolver/<name>: the deleted resolver's id; an unknown name or one in use is an error. */
export async function deleteMachineResolver(ctx: Context, name: string): Promise<number> {
  const id = await runTransaction(ctx.store, async (trx) => {
    const row = await findRow(trx, name);
    if (!row) throw new ResourceNotFoundError(`The machine resolver ${name} does not exist.`);
    const users = await machineResolverUsers(trx, row.name);
    if (users.length > 0) {
      throw new ConfigAdminError(`The machine resolver ${row.name} is still used by ${users.join(' and ')}.`);
    }
    await trx.deleteFrom('machineresolver').where('id', '=', row.id).execute();
    return Number(row.id);
  });
  dropMachineStore(ctx, id);
  return id;
}

/**
 * POST /machineresolver/test: tries settings without saving them; with `resolver=<name>` of a
 * stored machine resolver of the same type, __CENSORED__ secrets are taken from it.
 */
export async function testMachineResolver(ctx: Context, params: Record<string, string>): Promise<TestResult> {
  const type = params.type;
  if (!type) throw ParameterError.missing('type');
  const kind = machineResolverKind(type);
  const stored = params.resolver ? await findRow(ctx.store.db, params.resolver) : undefined;
  return testSettings(ctx, kind, params, NOT_SETTINGS, testBase(ctx, stored, type));
}
