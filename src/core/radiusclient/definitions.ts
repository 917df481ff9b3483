// RADIUS clients (issue 22): the NAS devices that may send Access-Requests to authsrv's own RADIUS
// server, by name, address or CIDR subnet and shared secret. The secret is sealed by the security
// module and leaves only as __CENSORED__; __CENSORED__ (or no secret) sent back keeps it, unless
// the address changes: then it must be given again, so that a stored secret is never handed to
// another network than the one it was agreed with.
import type { Transaction } from 'kysely';
import { ERR, ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { checkName } from '../plugin-settings/index.ts';
import { CENSORED } from '../system/index.ts';
import { type ClientAddress, parseClientAddress, sourceOf } from './address.ts';

/** The longest secret, in octets of UTF-8 (as for /radiusserver/). */
export const MAX_SECRET_OCTETS = 255;

/** GET /radiusclient/'s view of a client. */
export interface RadiusClientView {
  address: string;
  secret: typeof CENSORED;
  require_message_authenticator: boolean;
  description: string;
}

/** What a request gives of a client: absent fields are kept (or defaulted on creation). */
export interface RadiusClientInput {
  address?: string | undefined;
  secret?: string | undefined;
  require_message_authenticator?: string | boolean | undefined;
  description?: string | undefined;
}

/** A client as the RADIUS server needs it: the secret in clear. */
export interface RadiusClient {
  name: string;
  address: string;
  secret: Buffer;
  requireMessageAuthenticator: boolean;
}

interface Row {
  name: string;
  address: string;
  secret: string;
  require_message_authenticator: number;
  description: string;
}

function viewOf(row: Row): RadiusClientView {
  return {
    address: row.address,
    secret: CENSORED,
    require_message_authenticator: Number(row.require_message_authenticator) === 1,
    description: row.description,
  };
}

/** GET /radiusclient/: name → client, secrets censored; a name filters. */
export async function listRadiusClients(
  rt: Runtime,
  name?: string,
): Promise<Record<string, RadiusClientView>> {
  let q = rt.store.db.selectFrom('radiusclient').selectAll().orderBy('name');
  if (name) q = q.where('name', '=', name);
  const out: Record<string, RadiusClientView> = {};
  for (const row of await q.execute()) out[row.name] = viewOf(row);
  return out;
}

function checkSecret(secret: string): string {
  if (secret === '') throw ParameterError.missing('secret');
  if (Buffer.byteLength(secret, 'utf8') > MAX_SECRET_OCTETS)
    throw new ParameterError('The RADIUS secret is too long', ERR.RadiusSecretTooLong);
  if (secret.includes('\u0000')) throw new ParameterError('The RADIUS secret contains a NUL character');
  return secret;
}

function flagOf(value: string | boolean | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  if (!/^(1|0|true|false|yes|no|on|off)$/i.test(value.trim()))
    throw new ParameterError(`The parameter 'require_message_authenticator' must be true or false`);
  return isTrue(value.trim());
}

async function stored(trx: Transaction<Database>, name: string) {
  return trx.selectFrom('radiusclient').selectAll().where('name', '=', name).executeTakeFirst();
}

/**
 * POST /radiusclient/<name>: creates the client (address and secret required) or changes the
 * fields the request gives. Returns true.
 */
export async function setRadiusClient(ctx: Context, name: string, input: RadiusClientInput): Promise<true> {
  checkName('RADIUS client', name);
  checkLength('description', input.description, LIMITS.description);
  checkLength('address', input.address, 64);
  await runTransaction(ctx.store, async (trx) => {
    const old = await stored(trx, name);
    if (!old && (input.address === undefined || input.address.trim() === ''))
      throw ParameterError.missing('address');
    const address =
      input.address !== undefined && input.address.trim() !== ''
        ? parseClientAddress(input.address).text
        : old!.address;
    const keep = input.secret === undefined || input.secret === CENSORED;
    let secret: string;
    if (!keep) secret = ctx.hsm.encrypt(checkSecret(input.secret!));
    else if (!old) {
      if (input.secret === CENSORED)
        throw new ParameterError(`secret is ${CENSORED} but no secret is stored`);
      throw ParameterError.missing('secret');
    } else if (old.address !== address)
      throw new ParameterError(
        'The address changes: give the secret again (a stored secret stays with the address it was set for)',
      );
    else secret = old.secret;
    const values = {
      address,
      secret,
      require_message_authenticator: flagOf(
        input.require_message_authenticator,
        old ? Number(old.require_message_authenticator) === 1 : true,
      )
        ? 1
        : 0,
      description: input.description ?? old?.description ?? '',
    };
    if (old) await trx.updateTable('radiusclient').set(values).where('id', '=', old.id).execute();
    else
      await trx
        .insertInto('radiusclient')
        .values({ name, ...values })
        .execute();
  });
  return true;
}

/** DELETE /radiusclient/<name>: true; an unknown name is an error. */
export async function deleteRadiusClient(ctx: Context, name: string): Promise<true> {
  return runTransaction(ctx.store, async (trx) => {
    const r = await trx.deleteFrom('radiusclient').where('name', '=', name).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0)
      throw new ResourceNotFoundError(`The RADIUS client ${name} does not exist.`);
    return true as const;
  });
}

/**
 * The client a datagram from `source` belongs to, with its secret in clear, or undefined (the
 * packet is then dropped). The client with the longest matching prefix wins.
 */
export async function radiusClientFor(rt: Runtime, source: string): Promise<RadiusClient | undefined> {
  const from = sourceOf(source);
  let best: { row: Row; address: ClientAddress } | undefined;
  for (const row of await rt.store.db.selectFrom('radiusclient').selectAll().execute()) {
    let address: ClientAddress;
    try {
      address = parseClientAddress(row.address);
    } catch {
      continue;
    }
    if (address.family !== from.family || !address.list.check(from.address, from.family)) continue;
    if (!best || address.prefix > best.address.prefix) best = { row, address };
  }
  if (!best) return undefined;
  return {
    name: best.row.name,
    address: best.row.address,
    secret: Buffer.from(rt.hsm.decrypt(best.row.secret), 'utf8'),
    requireMessageAuthenticator: Number(best.row.require_message_authenticator) === 1,
  };
}
