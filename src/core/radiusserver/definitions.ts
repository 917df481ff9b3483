// RADIUS server definitions (/radiusserver/, reference 8.4): identifier, server, port, secret,
// description, timeout and retries. The secret is sealed by the security module, leaves only as
// __CENSORED__, and __CENSORED__ (or no secret) sent back keeps it, unless the request moves it to
// another server or port (the rule of secret-reuse.ts): then it must be given again.
import type { Transaction } from 'kysely';
import { ERR, ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { checkName } from '../plugin-settings/index.ts';
import { checkSecretReuse } from '../secret-reuse.ts';
import { CENSORED } from '../system/index.ts';

/** privacyIDEA's defaults (reference 8.4). */
export const DEFAULTS = { port: 1812, timeout: 5, retries: 3 } as const;
/** The longest secret, in octets of UTF-8 (ERR2234 beyond). */
export const MAX_SECRET_OCTETS = 255;
const MAX_TIMEOUT = 30;
const MAX_RETRIES = 5;

/** A definition with its secret in clear, as the RADIUS client needs it. */
export interface RadiusServer {
  identifier: string;
  server: string;
  port: number;
  secret: string;
  description: string;
  timeout: number;
  retries: number;
}

/** GET /radiusserver/'s view of a definition. */
export type RadiusServerView = Omit<RadiusServer, 'identifier'>;

/** What a request gives of a definition: absent fields are kept (or defaulted on creation). */
export interface RadiusServerInput {
  server?: string | undefined;
  port?: string | undefined;
  secret?: string | undefined;
  description?: string | undefined;
  timeout?: string | undefined;
  retries?: string | undefined;
}

/** The stored columns a view is made of. */
interface ViewColumns {
  server: string;
  port: number;
  description: string;
  timeout: number;
  retries: number;
}

function viewOf(row: ViewColumns): RadiusServerView {
  return {
    server: row.server,
    port: Number(row.port),
    secret: CENSORED,
    description: row.description,
    timeout: Number(row.timeout),
    retries: Number(row.retries),
  };
}

/** GET /radiusserver/: identifier → definition, secrets censored; an identifier filters. */
export async function listRadiusServers(
  rt: Runtime,
  identifier?: string,
): Promise<Record<string, RadiusServerView>> {
  let q = rt.store.db.selectFrom('radiusserver').selectAll().orderBy('identifier');
  if (identifier) q = q.where('identifier', '=', identifier);
  const out: Record<string, RadiusServerView> = {};
  for (const row of await q.execute()) out[row.identifier] = viewOf(row);
  return out;
}

/** GET /system/names/radius: the identifiers. */
export async function radiusServerNames(rt: Runtime): Promise<string[]> {
  const rows = await rt.store.db
    .selectFrom('radiusserver')
    .select('identifier')
    .orderBy('identifier')
    .execute();
  return rows.map((r) => r.identifier);
}

/** A definition with its secret in clear, or undefined. */
export async function findRadiusServer(rt: Runtime, identifier: string): Promise<RadiusServer | undefined> {
  const row = await rt.store.db
    .selectFrom('radiusserver')
    .selectAll()
    .where('identifier', '=', identifier)
    .executeTakeFirst();
  if (!row) return undefined;
  return { identifier: row.identifier, ...viewOf(row), secret: rt.hsm.decrypt(row.secret) };
}

/** An integer parameter within [min, max]. */
export function integerParam(name: string, value: string, min: number, max: number): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new ParameterError(`The parameter '${name}' must be an integer from ${min} to ${max}`);
  return n;
}

export function checkServer(server: string): string {
  const s = server.trim();
  if (!s) throw ParameterError.missing('server');
  checkLength('server', s, LIMITS.name);
  if (/[\s/@]/.test(s)) throw new ParameterError(`Invalid server '${s}': give a host name or an address`);
  return s;
}

export function checkSecret(secret: string): string {
  if (secret === '') throw ParameterError.missing('secret');
  if (Buffer.byteLength(secret, 'utf8') > MAX_SECRET_OCTETS)
    throw new ParameterError('The RADIUS secret is too long', ERR.RadiusSecretTooLong);
  if (secret.includes('\u0000')) throw new ParameterError('The RADIUS secret contains a NUL character');
  return secret;
}

/** The connection settings of a request, each given or else `base`'s. */
export function connectionOf(
  input: RadiusServerInput,
  base: Omit<RadiusServer, 'identifier' | 'secret' | 'description'>,
): Omit<RadiusServer, 'identifier' | 'secret' | 'description'> {
  return {
    server: input.server !== undefined ? checkServer(input.server) : base.server,
    port:
      input.port !== undefined && input.port !== '' ? integerParam('port', input.port, 1, 65535) : base.port,
    timeout:
      input.timeout !== undefined && input.timeout !== ''
        ? integerParam('timeout', input.timeout, 1, MAX_TIMEOUT)
        : base.timeout,
    retries:
      input.retries !== undefined && input.retries !== ''
        ? integerParam('retries', input.retries, 0, MAX_RETRIES)
        : base.retries,
  };
}

/** The secret-reuse rule: a kept secret goes only to the server and port it was stored for. */
const SECRET_SPECS = {
  secret: { type: 'password', destination: ['server', 'port'] },
  server: { type: 'string' },
  port: { type: 'int' },
} as const;

/**
 * The secret a request ends up with: its own, or (given as __CENSORED__ or not at all) the stored
 * one, refused when the request changes where it goes.
 */
export function secretOf(
  given: string | undefined,
  stored: Pick<RadiusServer, 'server' | 'port' | 'secret'> | undefined,
  requested: { server: string; port: number },
): string {
  const keep = given === undefined || given === CENSORED;
  if (!keep) return checkSecret(given);
  if (!stored) {
    if (given === CENSORED) throw new ParameterError(`secret is ${CENSORED} but no secret is stored`);
    throw ParameterError.missing('secret');
  }
  checkSecretReuse({
    specs: SECRET_SPECS,
    stored: { server: stored.server, port: String(stored.port), secret: stored.secret },
    requested: { server: requested.server, port: String(requested.port), secret: stored.secret },
    secrets: new Set(['secret']),
    given: new Set(),
  });
  return stored.secret;
}

async function stored(trx: Transaction<Database>, rt: Runtime, identifier: string) {
  const row = await trx
    .selectFrom('radiusserver')
    .selectAll()
    .where('identifier', '=', identifier)
    .executeTakeFirst();
  return row ? { row, secret: rt.hsm.decrypt(row.secret) } : undefined;
}

/**
 * POST /radiusserver/<identifier>: creates the definition (server and secret required) or changes
 * the fields the request gives. Returns true.
 */
export async function setRadiusServer(
  ctx: Context,
  identifier: string,
  input: RadiusServerInput,
): Promise<true> {
  checkName('RADIUS server', identifier);
  checkLength('description', input.description, LIMITS.description);
  await runTransaction(ctx.store, async (trx) => {
    const old = await stored(trx, ctx, identifier);
    if (!old && (input.server === undefined || input.server.trim() === ''))
      throw ParameterError.missing('server');
    const conn = connectionOf(input, old ? viewOf(old.row) : { server: '', ...DEFAULTS });
    const secret = secretOf(input.secret, old ? { ...viewOf(old.row), secret: old.secret } : undefined, conn);
    const values = {
      ...conn,
      secret: ctx.hsm.encrypt(secret),
      description: input.description ?? old?.row.description ?? '',
    };
    if (old) await trx.updateTable('radiusserver').set(values).where('id', '=', old.row.id).execute();
    else
      await trx
        .insertInto('radiusserver')
        .values({ identifier, ...values })
        .execute();
  });
  return true;
}

/** DELETE /radiusserver/<identifier>: true; an unknown identifier is an error. */
export async function deleteRadiusServer(ctx: Context, identifier: string): Promise<true> {
  return runTransaction(ctx.store, async (trx) => {
    const r = await trx.deleteFrom('radiusserver').where('identifier', '=', identifier).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0)
      throw new ResourceNotFoundError(`The RADIUS server ${identifier} does not exist.`);
    return true as const;
  });
}
