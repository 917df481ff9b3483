// GET /machine/authitem[/<application>] (reference 6.4): the authentication items of the tokens
// attached for each application (ssh: public keys), for a machine named by its hostname or for an
// option the application looks up by (ssh: service_id), filtered as the application filters them.
import {
  type AttachedToken,
  applicationNames,
  type ItemFilter,
  type MachineApplication,
  machineApplication,
} from '../../applications/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { findToken, ownerUser, tokenState } from '../token/index.ts';
import { listMachineTokens, type MachineTokenRecord } from './attachment-list.ts';
import { machinesOfHostname } from './locate.ts';

export interface AuthItemRequest {
  /** One application; none: every application. */
  application?: string | undefined;
  hostname?: string | undefined;
  /** The filters: user, service_id, challenge … */
  filter: Record<string, string>;
}

/** The attachments an application's request means: by its lookup option, else by the hostname. */
async function attachmentsFor(
  ctx: Context,
  app: MachineApplication,
  hostname: string | undefined,
  filter: ItemFilter,
): Promise<MachineTokenRecord[]> {
  const { byOption } = app.lookup(filter);
  if (byOption) {
    const wanted = (filter[byOption] ?? '').toLowerCase();
    const all = await listMachineTokens(ctx, { application: app.name });
    return all.filter((r) => r.options[byOption]?.toLowerCase() === wanted);
  }
  if (!hostname) throw ParameterError.missing('hostname');
  const all = await listMachineTokens(ctx, { application: app.name });
  // Only the machine resolvers with attachments are asked: a host of another one has no items,
  // and an unreachable resolver without attachments does not fail the lookup.
  const resolvers = new Set(all.flatMap((r) => (r.resolver ? [r.resolver] : [])));
  if (resolvers.size === 0) return [];
  const machines = await machinesOfHostname(ctx, hostname, undefined, resolvers);
  return all.filter((r) => machines.some((m) => m.machineId === r.machine_id && m.resolver === r.resolver));
}

async function attachedToken(ctx: Context, r: MachineTokenRecord): Promise<AttachedToken | undefined> {
  const t = await findToken(ctx, r.serial);
  if (!t) return undefined;
  const owner = await ownerUser(ctx, t);
  return {
    serial: t.row.serial,
    type: t.type.type,
    active: Boolean(t.row.active) && !t.row.revoked,
    info: t.info,
    username: owner?.login,
    options: r.options,
    hmacResponse: (challenge) => t.type.hmacResponse(tokenState(ctx, t), challenge),
  };
}

/** {<application>: [items…]} for the one application asked for, or for every application. */
export async function authItems(
  ctx: Context,
  req: AuthItemRequest,
): Promise<Record<string, Record<string, unknown>[]>> {
  checkLength('hostname', req.hostname, LIMITS.name);
  for (const [k, v] of Object.entries(req.filter)) checkLength(k, v, LIMITS.filter);
  const apps = req.application
    ? [machineApplication(req.application)]
    : applicationNames().map(machineApplication);
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const app of apps) {
    const items: Record<string, unknown>[] = [];
    for (const r of await attachmentsFor(ctx, app, req.hostname, req.filter)) {
      const token = await attachedToken(ctx, r);
      const item = token && app.authItem(token, req.filter);
      if (item) items.push({ ...item, serial: token.serial });
    }
    out[app.name] = items;
  }
  return out;
}
