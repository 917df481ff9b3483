// Client applications (reference 4.1, 8.6; spec "Client endpoint"): every /validate check records
// the address, the user agent and the node that saw it; GET /client/ lists them by client type.
import type { Runtime } from '../context.ts';

export interface ClientSeen {
  ip: string;
  /**
   * The end user's address as a trusted intermediary reported it (a NAS's Calling-Station-Id):
   * the brute-force throttling counts against it instead of `ip`, which stays the client of the
   * policies, the audit and the client list.
   */
  throttleAddress?: string;
  /** The full User-Agent header as far as the front end knows it. */
  userAgent: string | undefined;
}

/** The client type of a User-Agent: its product name (`PAM/2.0` → `PAM`), 'unknown' without one. */
export function clientType(userAgent: string | undefined): string {
  return (userAgent ?? '').trim().split(/[\s/]/)[0] || 'unknown';
}

const MAX = { ip: 64, clienttype: 255, user_agent: 1000 };

/**
 * How often one process writes the lastseen of one client (ip, client type, user agent): a busy
 * client checks many times a second, and every write is a statement on the login path. A check
 * within this interval of the last write by this process writes nothing, so the listing's lastseen
 * lags the last check by at most this much (per node: the note is per process).
 */
export const CLIENT_WRITE_INTERVAL_MS = 60_000;
/** Clients noted per store before notes older than the interval are dropped. */
const MAX_NOTES = 10_000;

/** When this process last wrote each client's row, by store (several runtimes may share a process). */
const written = new WeakMap<Runtime['store'], Map<string, number>>();

function notesOf(rt: Runtime): Map<string, number> {
  let notes = written.get(rt.store);
  if (!notes) {
    notes = new Map();
    written.set(rt.store, notes);
  }
  return notes;
}

/**
 * Records that a client used this node now (insert, or update of lastseen), at most once per
 * CLIENT_WRITE_INTERVAL_MS for the same address, client type and user agent (a new user agent is
 * written at once). Concurrent first checks of one client race on the unique (ip, clienttype,
 * node): the loser updates instead. A row deleted from the table reappears at the next write.
 */
export async function recordClient(rt: Runtime, seen: ClientSeen): Promise<void> {
  const key = {
    ip: seen.ip.slice(0, MAX.ip),
    clienttype: clientType(seen.userAgent).slice(0, MAX.clienttype),
    node: rt.node,
  };
  const now = rt.clock();
  const values = {
    lastseen: now.toISOString(),
    user_agent: (seen.userAgent ?? '').slice(0, MAX.user_agent),
  };
  const notes = notesOf(rt);
  const note = JSON.stringify([key.ip, key.clienttype, values.user_agent]);
  const last = notes.get(note);
  // A clock that went back (tests, or a corrected system clock) writes too.
  if (last !== undefined && now.getTime() >= last && now.getTime() - last < CLIENT_WRITE_INTERVAL_MS) return;
  const update = () =>
    rt.store.db
      .updateTable('clients')
      .set(values)
      .where('ip', '=', key.ip)
      .where('clienttype', '=', key.clienttype)
      .where('node', '=', key.node)
      .executeTakeFirst();
  if (Number((await update()).numUpdatedRows) === 0) {
    try {
      await rt.store.db
        .insertInto('clients')
        .values({ ...key, ...values, hostname: '' })
        .execute();
    } catch {
      await update();
    }
  }
  if (notes.size >= MAX_NOTES) {
    for (const [k, at] of notes) if (!(now.getTime() - at < CLIENT_WRITE_INTERVAL_MS)) notes.delete(k);
    if (notes.size >= MAX_NOTES) notes.clear();
  }
  notes.set(note, now.getTime());
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
  // A Map, not an object: the client type is the caller's User-Agent, and one named like a member
  // of Object.prototype (`constructor/1.0`, `__proto__`) must be a group like any other.
  const groups = new Map<string, ClientEntry[]>();
  for (const r of rows) {
    let list = groups.get(r.clienttype);
    if (!list) {
      list = [];
      groups.set(r.clienttype, list);
    }
    list.push({
      hostname: r.hostname === '' ? null : r.hostname,
      ip: r.ip,
      clienttype: r.clienttype,
      user_agent: r.user_agent,
      node: r.node,
      lastseen: new Date(r.lastseen).toUTCString(),
    });
  }
  return Object.fromEntries(groups);
}
