// Client applications (reference 4.1, 8.6; spec "Client endpoint"): every /validate check records
// the address, the user agent and the node that saw it; GET /client/ lists them by client type.
import type { Runtime } from './context.ts';

export interface ClientSeen {
  ip: string;
  /** The full User-Agent header as far as the front end knows it. */
  userAgent: string | undefined;
}

/** The client type of a User-Agent: its product name (`PAM/2.0` → `PAM`), 'unknown' without one. */
export function clientType(userAgent: string | undefined): string {
  return (userAgent ?? '').trim().split(/[\s/]/)[0] || 'unknown';
}

const MAX = { ip: 64, clienttype: 255, user_agent: 1000 };

/**
 * Records that a client used this node now (insert, or update of lastseen). Concurrent first
 * checks of one client race on the unique (ip, clienttype, node): the loser updates instead.
 */
export async function recordClient(rt: Runtime, seen: ClientSeen): Promise<void> {
  const key = {
    ip: seen.ip.slice(0, MAX.ip),
    clienttype: clientType(seen.userAgent).slice(0, MAX.clienttype),
    node: rt.node,
  };
  const values = {
    lastseen: rt.clock().toISOString(),
    user_agent: (seen.userAgent ?? '').slice(0, MAX.user_agent),
  };
  const update = () =>
    rt.store.db
      .updateTable('clients')
      .set(values)
      .where('ip', '=', key.ip)
      .where('clienttype', '=', key.clienttype)
      .where('node', '=', key.node)
      .executeTakeFirst();
  if (Number((await update()).numUpdatedRows) > 0) return;
  try {
    await rt.store.db
      .insertInto('clients')
      .values({ ...key, ...values, hostname: '' })
      .execute();
  } catch {
    await update();
  }
}

export interface ClientEntry {
  hostname: string | null;
  ip: string;
  clienttype: string;
  user_agent: string;
  node: string;
  /** HTTP-date, as Flask renders privacyIDEA's datetime. */
  lastseen: string;
}

/** GET /client/: the clients grouped by client type, most recently seen first. */
export async function listClients(rt: Runtime): Promise<Record<string, ClientEntry[]>> {
  const rows = await rt.store.db
    .selectFrom('clients')
    .selectAll()
    .orderBy('clienttype')
    .orderBy('lastseen', 'desc')
    .orderBy('id')
    .execute();
  const out: Record<string, ClientEntry[]> = {};
  for (const r of rows) {
    const list = out[r.clienttype] ?? [];
    out[r.clienttype] = list;
    list.push({
      hostname: r.hostname === '' ? null : r.hostname,
      ip: r.ip,
      clienttype: r.clienttype,
      user_agent: r.user_agent,
      node: r.node,
      lastseen: new Date(r.lastseen).toUTCString(),
    });
  }
  return out;
}
