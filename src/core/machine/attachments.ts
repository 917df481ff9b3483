// Machine tokens (POST/DELETE /machine/token, POST /machine/tokenoption, reference 6.4): a token
// attached to a machine (or to any machine) for an application, with options. This file is the one
// writer of the machinetoken tables, but for deleteTokenRows of the token store, which removes a
// deleted token's attachments in the token's own transaction. Every change is one transaction;
// one that adds or removes machinetoken rows also moves their change counter (writeAttachments of
// issuing-tokens.ts), so that every node sees which tokens are attached for offline.
import type { Transaction } from 'kysely';
import { machineApplication } from '../../applications/index.ts';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { type Database, type Dialect, isUniqueViolation, runTransaction } from '../../store/index.ts';
import type { Context } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { requireToken } from '../token/index.ts';
import { writeAttachments } from './issuing-tokens.ts';
import { locateMachine, type MachineNaming, type MachineRef, resolverRow } from './locate.ts';

type Trx = Transaction<Database>;

export interface AttachRequest extends MachineNaming {
  serial: string;
  application: string;
  /** Every other parameter of the request. */
  options: Record<string, string>;
}

/**
 * Options as given: keys of at most 255, values of at most 2000 characters, each as the
 * applications of the attachments take it (offline: count and rounds numbers).
 */
function checkOptions(options: Record<string, string>, applications: readonly string[]): void {
  for (const [key, value] of Object.entries(options)) {
    if (!key.trim()) throw new ParameterError('An option needs a name.');
    checkLength('option name', key, LIMITS.name);
    checkLength(key, value, LIMITS.description);
    for (const name of applications) machineApplication(name).checkOption?.(key, value);
  }
}

/** The applications of attachments. */
async function applicationsOf(trx: Trx, ids: number[]): Promise<string[]> {
  const rows = await trx.selectFrom('machinetoken').select('application').where('id', 'in', ids).execute();
  return [...new Set(rows.map((r) => r.application))];
}

/** An option `service_id` must name a service ID (compared case-insensitively, as authentication does). */
async function checkServiceId(trx: Trx, options: Record<string, string>): Promise<void> {
  const name = options.service_id;
  if (!name) return;
  const rows = await trx.selectFrom('serviceid').select('name').execute();
  if (!rows.some((r) => r.name.toLowerCase() === name.toLowerCase())) {
    throw new ResourceNotFoundError(`The service ID ${name} does not exist.`);
  }
}

async function writeOptions(trx: Trx, mtid: number, options: Record<string, string>) {
  let added = 0;
  let deleted = 0;
  for (const [key, value] of Object.entries(options)) {
    const gone = await trx
      .deleteFrom('machinetoken_option')
      .where('machinetoken_id', '=', mtid)
      .where('key', '=', key)
      .executeTakeFirst();
    if (value === '') {
      deleted += Number(gone.numDeletedRows);
      continue;
    }
    await trx.insertInto('machinetoken_option').values({ machinetoken_id: mtid, key, value }).execute();
    added += 1;
  }
  return { added, deleted };
}

/** The attachments of a token for an application on one machine (none: machine-less ones). */
async function attachmentsOn(trx: Trx, tokenId: number, application: string, m: MachineRef | undefined) {
  let q = trx
    .selectFrom('machinetoken')
    .select('id')
    .where('token_id', '=', tokenId)
    .where('application', '=', application);
  q = m
    ? q.where('machineresolver_id', '=', m.resolverId).where('machine_id', '=', m.machineId)
    : q.where('machineresolver_id', 'is', null).where('machine_id', 'is', null);
  return (await q.orderBy('id').execute()).map((r) => Number(r.id));
}

/** A new attachment's row. */
interface AttachmentRow {
  token_id: number;
  machineresolver_id: number | null;
  machine_id: string | null;
  application: string;
}

/**
 * Inserts an attachment and returns the id the database gave this very insert (the last attachment
 * read back could be another request's, committed meanwhile, with options of its own).
 */
async function insertAttachment(trx: Trx, dialect: Dialect, row: AttachmentRow): Promise<number> {
  if (dialect === 'postgres') {
    const r = await trx.insertInto('machinetoken').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(r.id);
  }
  const r = await trx.insertInto('machinetoken').values(row).executeTakeFirstOrThrow();
  return Number(r.insertId);
}

function alreadyAttached(serial: string, m: MachineRef, application: string): ParameterError {
  return new ParameterError(
    `The token ${serial} is already attached to machine ${m.machineId} (${m.resolver}) for ${application}.`,
  );
}

/**
 * POST /machine/token: attaches a token for an application to the machine the request names (or
 * to any machine, where the application allows it), with the other parameters as options.
 * Returns the new attachment's id. A token is attached to a machine once per application: checked
 * here, and decided by the unique index `machinetoken_unique` between requests that attach it at
 * the same moment (each saw none before it inserted).
 */
export async function attachToken(ctx: Context, req: AttachRequest): Promise<number> {
  if (!req.serial) throw ParameterError.missing('serial');
  if (!req.application) throw ParameterError.missing('application');
  checkLength('serial', req.serial, LIMITS.serial);
  const app = machineApplication(req.application);
  checkOptions(req.options, [app.name]);
  const machine = await locateMachine(ctx, req);
  if (!machine && !app.machineOptional) {
    throw new ParameterError(
      `The application ${app.name} needs a machine: give hostname, or machineid and resolver.`,
    );
  }
  let serial = req.serial;
  try {
    return await writeAttachments(ctx.store, async (trx) => {
      const t = await requireToken(ctx, req.serial, trx);
      serial = t.row.serial;
      if (!app.tokenTypes.includes(t.type.type)) {
        throw new ParameterError(
          `The application ${app.name} takes tokens of type ${app.tokenTypes.join(', ')}; ${serial} is a ${t.type.type} token.`,
        );
      }
      await checkServiceId(trx, req.options);
      if (machine && (await attachmentsOn(trx, t.row.id, app.name, machine)).length > 0) {
        throw alreadyAttached(serial, machine, app.name);
      }
      const mtid = await insertAttachment(trx, ctx.store.dialect, {
        token_id: t.row.id,
        machineresolver_id: machine?.resolverId ?? null,
        machine_id: machine?.machineId ?? null,
        application: app.name,
      });
      await writeOptions(trx, mtid, req.options);
      return mtid;
    });
  } catch (e) {
    // Another request attached it at the same moment and committed first: the index refused this one.
    if (machine && isUniqueViolation(e)) throw alreadyAttached(serial, machine, app.name);
    throw e;
  }
}

/** Which attachment a request means: its id, or the token, application and machine. */
export interface AttachmentSelector extends MachineNaming {
  mtid?: string | undefined;
  serial?: string | undefined;
  application?: string | undefined;
}

/** The machine of a selector: a machine id is taken as given (it may have left its resolver). */
async function selectedMachine(ctx: Context, s: AttachmentSelector): Promise<MachineRef | undefined> {
  if (!s.machineid) return locateMachine(ctx, s);
  if (!s.resolver) throw ParameterError.missing('resolver');
  checkLength('machineid', s.machineid, LIMITS.name);
  checkLength('resolver', s.resolver, LIMITS.name);
  const row = await resolverRow(ctx, s.resolver);
  if (!row) throw new ResourceNotFoundError(`The machine resolver ${s.resolver} does not exist.`);
  return { resolverId: Number(row.id), resolver: row.name, machineId: s.machineid };
}

const NO_ATTACHMENT = 'The token is not attached to that machine for that application.';

/** What a selector names, resolved before its transaction (machines are looked up outside it). */
interface Selection {
  selector: AttachmentSelector;
  mtid: number | undefined;
  application: string | undefined;
  machine: MachineRef | undefined;
}

async function resolveSelector(ctx: Context, s: AttachmentSelector): Promise<Selection> {
  if (!s.serial && !s.mtid) throw ParameterError.missing('serial');
  if (s.serial) checkLength('serial', s.serial, LIMITS.serial);
  if (s.mtid !== undefined && s.mtid !== '') {
    if (!/^\d{1,15}$/.test(s.mtid)) throw new ParameterError(`mtid must be a number, not '${s.mtid}'`);
    return { selector: s, mtid: Number(s.mtid), application: s.application, machine: undefined };
  }
  if (!s.serial) throw ParameterError.missing('serial');
  if (!s.application) throw ParameterError.missing('application');
  const app = machineApplication(s.application);
  return { selector: s, mtid: undefined, application: app.name, machine: await selectedMachine(ctx, s) };
}

/** The ids of the attachments a selection means (never empty: none is an error). */
async function selectAttachments(ctx: Context, trx: Trx, sel: Selection): Promise<number[]> {
  const serial = sel.selector.serial;
  const t = serial ? await requireToken(ctx, serial, trx) : undefined;
  if (sel.mtid !== undefined) {
    let q = trx.selectFrom('machinetoken').select('id').where('id', '=', sel.mtid);
    if (t) q = q.where('token_id', '=', t.row.id);
    if (sel.application) q = q.where('application', '=', sel.application);
    const row = await q.executeTakeFirst();
    if (!row)
      throw new ResourceNotFoundError(
        `There is no machine token ${sel.mtid}${t ? ` of ${t.row.serial}` : ''}.`,
      );
    return [Number(row.id)];
  }
  const ids = await attachmentsOn(trx, t!.row.id, sel.application!, sel.machine);
  if (ids.length === 0) throw new ResourceNotFoundError(NO_ATTACHMENT);
  return ids;
}

async function deleteAttachments(trx: Trx, ids: number[]): Promise<number> {
  await trx.deleteFrom('machinetoken_option').where('machinetoken_id', 'in', ids).execute();
  const r = await trx.deleteFrom('machinetoken').where('id', 'in', ids).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * DELETE /machine/token/<serial>/<machineid>/<resolver>/<application> and
 * /machine/token/<serial>/<application>/<mtid>: detaches; the number of attachments removed.
 */
export async function detachToken(ctx: Context, s: AttachmentSelector): Promise<number> {
  const sel = await resolveSelector(ctx, s);
  return writeAttachments(ctx.store, async (trx) =>
    deleteAttachments(trx, await selectAttachments(ctx, trx, sel)),
  );
}

/**
 * POST /machine/tokenoption: sets the options of the attachments a selector means; an empty value
 * deletes the option. {added, deleted}: options written and options removed.
 */
export async function setAttachmentOptions(
  ctx: Context,
  s: AttachmentSelector,
  options: Record<string, string>,
): Promise<{ added: number; deleted: number }> {
  checkOptions(options, []);
  if (Object.keys(options).length === 0)
    throw new ParameterError('No option given: name the options to set as parameters.');
  const sel = await resolveSelector(ctx, s);
  return runTransaction(ctx.store, async (trx) => {
    const ids = await selectAttachments(ctx, trx, sel);
    checkOptions(options, await applicationsOf(trx, ids));
    await checkServiceId(trx, options);
    const sum = { added: 0, deleted: 0 };
    for (const id of ids) {
      const r = await writeOptions(trx, id, options);
      sum.added += r.added;
      sum.deleted += r.deleted;
    }
    return sum;
  });
}
