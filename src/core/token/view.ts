// The token record of the API (reference 3.4): a token with its owner's name and its groups.
import type { Runtime } from '../context.ts';
import { type ResolverHandle, userStore } from '../directory/index.ts';
import { CENSORED } from '../system/index.ts';
import type { LoadedToken, TokenOwner } from './store/index.ts';

export type TokenView = Record<string, unknown>;

export async function tokenView(rt: Runtime, t: LoadedToken): Promise<TokenView> {
  return (await tokenViews(rt, [t]))[0]!;
}

interface OwnerName {
  username: string;
  editable: boolean;
}

/**
 * The owners' user names of tokens, each resolver and user looked up once (a page of a listing
 * usually holds many tokens of few users). A resolver that is gone or unreachable gives
 * privacyIDEA's marker `**resolver error**`.
 */
function ownerNames(rt: Runtime): (owner: TokenOwner) => Promise<OwnerName> {
  const handles = new Map<string, Promise<ResolverHandle | undefined>>();
  const names = new Map<string, Promise<OwnerName>>();
  return (owner) => {
    const key = JSON.stringify([owner.resolver, owner.userId]);
    let name = names.get(key);
    if (!name) {
      let handle = handles.get(owner.resolver);
      if (!handle) {
        handle = userStore(rt, owner.resolver).catch(() => undefined);
        handles.set(owner.resolver, handle);
      }
      name = handle.then(async (h): Promise<OwnerName> => {
        if (!h) return { username: '**resolver error**', editable: false };
        const editable = h.store.editable;
        try {
          return { username: (await h.store.findById(owner.userId))?.username ?? '', editable };
        } catch {
          return { username: '**resolver error**', editable };
        }
      });
      names.set(key, name);
    }
    return name;
  };
}

/** The token groups of tokens (by token id, names sorted), in one query. */
async function groupsOfTokens(rt: Runtime, ids: readonly number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await rt.store.db
    .selectFrom('tokengroup_token')
    .innerJoin('tokengroup', 'tokengroup.id', 'tokengroup_token.tokengroup_id')
    .select(['tokengroup_token.token_id', 'tokengroup.name'])
    .where('tokengroup_token.token_id', 'in', [...new Set(ids)])
    .orderBy('tokengroup.name')
    .execute();
  for (const r of rows) out.get(Number(r.token_id))?.push(r.name);
  return out;
}

/** The API records of tokens: owners and token groups are read once for all of them, not per token. */
export async function tokenViews(
  rt: Runtime,
  tokens: readonly LoadedToken[],
  /** The tokens' groups when already read (groupsOfTokens). */
  knownGroups?: Map<number, string[]>,
): Promise<TokenView[]> {
  if (tokens.length === 0) return [];
  const nameOf = ownerNames(rt);
  const [groups, names] = await Promise.all([
    knownGroups ??
      groupsOfTokens(
        rt,
        tokens.map((t) => t.row.id),
      ),
    Promise.all(tokens.map((t) => (t.owner ? nameOf(t.owner) : undefined))),
  ]);
  return tokens.map((t, i) => {
    const name = names[i];
    const owner: Record<string, unknown> =
      t.owner && name
        ? {
            resolver: t.owner.resolver,
            user_id: t.owner.userId,
            username: name.username,
            user_realm: t.owner.realm,
            user_editable: name.editable,
          }
        : { resolver: '', user_id: '', username: '', user_realm: '' };
    return {
      id: t.row.id,
      serial: t.row.serial,
      tokentype: t.row.tokentype,
      description: t.row.description,
      info: shownInfo(t),
      otplen: t.row.otplen,
      maxfail: t.row.maxfail,
      failcount: t.row.failcount,
      count: Number(t.row.count),
      count_window: t.row.count_window,
      sync_window: t.row.sync_window,
      active: t.row.active === 1,
      revoked: t.row.revoked === 1,
      locked: t.row.locked === 1,
      rollout_state: t.row.rollout_state,
      realms: t.realms,
      tokengroup: groups.get(t.row.id) ?? [],
      ...owner,
      container_serial: '',
    };
  });
}

/** The tokeninfo as listed: values stored sealed (the offline refill token) only as __CENSORED__. */
function shownInfo(t: LoadedToken): Record<string, string> {
  const info = { ...t.info };
  for (const key of t.sealedInfo ?? []) info[key] = CENSORED;
  return info;
}
