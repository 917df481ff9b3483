// Tokens (tables token, tokeninfo, tokenowner, tokenrealm, tokentokengroup): every token of a type
// authsrv has, with its secret (the type's fromPrivacyidea, src/tokens), PIN (token-pin.ts), counters, fail counter,
// state, tokeninfo (`password` values sealed again), owner, realms and token groups, written in
// multi-row INSERTs by the token store (insertMigratedTokens) with the rows authsrv's own token
// code writes. Counters mean the same in both: HOTP types the next counter, TOTP and mOTP the last
// used time step (with timeShift in tokeninfo).
import type { Insertable } from 'kysely';
import type { TokenTable } from '../../../../store/index.ts';
import { chunked } from '../../../../store/index.ts';
import { findTokenType, type PrivacyideaStoredToken } from '../../../../tokens/index.ts';
import type { Context } from '../../../context.ts';
import { insertMigratedTokens, type MigratedToken, sealKey } from '../../../token/index.ts';
import type { ImportInput, ImportSection, Skipped } from '../section.ts';
import { keyValuesByOwner, type PiKeyValue, piBool, piText } from './common.ts';
import { existingNames } from './existing.ts';
import { namesById, openKeyValue, piNumber } from './pi-values.ts';
import { importedPin } from './token-pin.ts';

/** Tokens per batch of INSERTs (and per progress report). */
const BATCH = 500;

// biome-ignore lint/suspicious/noExplicitAny: a row of privacyIDEA's token table
type PiTokenRow = Record<string, any>;

/** What a token is linked to in privacyIDEA, by token id. */
interface Links {
  owners: Map<number, { resolver: string; userId: string; realm: string }>;
  realms: Map<number, string[]>;
  groups: Map<number, string[]>;
  /** The serial of the container a token is in (privacyIDEA 3.10 and later). */
  containers: Map<number, string>;
}

export const tokenSection: ImportSection = {
  name: 'tokens',
  async plan(input, ctx) {
    const db = input.source.db;
    const rows: PiTokenRow[] = await db.selectFrom('token').selectAll().orderBy('id').execute();
    const info = await keyValuesByOwner(db, 'tokeninfo', 'token_id', { type: 'Type' });
    const links = await readLinks(input);
    const imported = new Set(input.planned('realms'));
    const resolvers = new Set(input.planned('resolvers'));
    const skipped: Skipped[] = [];
    const planned: MigratedToken[] = [];
    for (const row of rows) {
      const t = await plannedToken(input, ctx, row, info.get(Number(row.id)) ?? [], skipped);
      if (!t) continue;
      const id = Number(row.id);
      const owner = links.owners.get(id);
      const ownerLeftOut = !owner
        ? undefined
        : !imported.has(owner.realm)
          ? `the realm ${owner.realm} is not imported`
          : !resolvers.has(owner.resolver)
            ? `the resolver ${owner.resolver} is not imported`
            : undefined;
      if (ownerLeftOut) skipped.push({ object: `${t.row.serial} owner`, reason: ownerLeftOut });
      const container = links.containers.get(id);
      if (container)
        skipped.push({
          object: `${t.row.serial} container ${container}`,
          reason: 'authsrv has no token containers: the token is imported on its own',
        });
      planned.push({
        ...t,
        owner: ownerLeftOut ? undefined : owner,
        realms: (links.realms.get(id) ?? []).filter((r) => imported.has(r)),
        groups: links.groups.get(id) ?? [],
      });
    }
    const serials = planned.map((t) => t.row.serial);
    return {
      objects: serials,
      skipped,
      conflicts: await existingNames(ctx, 'token', 'serial', serials),
      async write(inner, progress) {
        // The import's transaction (run.ts): the store writes the rows in it.
        const trx = inner.store.db as Parameters<typeof insertMigratedTokens>[1];
        let written = 0;
        for (const part of chunked(planned, BATCH)) {
          await insertMigratedTokens(inner, trx, inner.store.dialect, part);
          written += part.length;
          progress(written);
        }
      },
    };
  },
};

/** The token row and tokeninfo authsrv stores, or undefined (reported in `skipped`). */
async function plannedToken(
  input: ImportInput,
  ctx: Context,
  row: PiTokenRow,
  infoRows: readonly PiKeyValue[],
  skipped: Skipped[],
): Promise<Pick<MigratedToken, 'row' | 'info'> | undefined> {
  const serial = piText(row.serial);
  const type = piText(row.tokentype).toLowerCase();
  const skip = (reason: string) => {
    skipped.push({ object: serial, reason });
    return undefined;
  };
  const tokenType = findTokenType(type);
  if (tokenType?.type !== type) return skip(`authsrv has no ${type} token type`);
  if (!tokenType.fromPrivacyidea) return skip(`the import does not carry ${type} tokens over yet`);
  let stored: PrivacyideaStoredToken;
  try {
    stored = storedToken(input, serial, row, infoRows);
  } catch (e) {
    return skip(`its secret does not decrypt with this key file: ${(e as Error).message}`);
  }
  const converted = tokenType.fromPrivacyidea(stored);
  if ('reason' in converted) return skip(converted.reason);
  for (const e of stored.info)
    if (e.value === undefined)
      skipped.push({
        object: `${serial} tokeninfo ${e.key}`,
        reason: 'its value does not decrypt with this key file',
      });
  for (const l of converted.leftOut ?? []) skipped.push({ object: `${serial} ${l.what}`, reason: l.reason });
  const pin = await importedPin(input.keys, piText(row.pin_hash));
  if (typeof pin !== 'string') return skip(pin.reason);
  if (!converted.keepsUserPin && piText(row.user_pin))
    skipped.push({ object: `${serial} user_pin`, reason: 'authsrv keeps no user PIN besides the OTP PIN' });
  if (piText(row.so_pin)) skipped.push({ object: `${serial} so_pin`, reason: 'authsrv keeps no SO PIN' });
  const tokenRow: Insertable<TokenTable> = {
    serial,
    tokentype: type,
    description: piText(row.description),
    otplen: piNumber(row.otplen, 6),
    maxfail: piNumber(row.maxfail, 10),
    failcount: piNumber(row.failcount),
    count: piNumber(row.count),
    count_window: piNumber(row.count_window, 10),
    sync_window: piNumber(row.sync_window, 1000),
    active: piBool(row.active) ? 1 : 0,
    revoked: piBool(row.revoked) ? 1 : 0,
    locked: piBool(row.locked) ? 1 : 0,
    rollout_state: piText(row.rollout_state),
    key_enc: sealKey(ctx, converted.key),
    pin_hash: pin,
  };
  return { row: tokenRow, info: converted.info };
}

/** A token's secrets as privacyIDEA stores them, opened; throws when key_enc or user_pin does not decrypt. */
function storedToken(
  input: ImportInput,
  serial: string,
  row: PiTokenRow,
  infoRows: readonly PiKeyValue[],
): PrivacyideaStoredToken {
  const open = (iv: unknown, ct: unknown) => input.keys.tokenValue(piText(iv), piText(ct)).toString('utf8');
  return {
    serial,
    plaintext: piText(row.key_enc) ? open(row.key_iv, row.key_enc) : '',
    userPin: piText(row.user_pin) ? open(row.user_pin_iv, row.user_pin) : undefined,
    info: infoRows.map((r) => openKeyValue(input.keys, r)),
  };
}

/** Owners, realms and groups of every token, by name. */
async function readLinks({ source }: ImportInput): Promise<Links> {
  const db = source.db;
  const realmNames = await namesById(db, 'realm');
  const groupNames = await namesById(db, 'tokengroup');
  const owners: Links['owners'] = new Map();
  for (const o of await db
    .selectFrom('tokenowner')
    .select(['token_id', 'resolver', 'user_id', 'realm_id'])
    .execute())
    owners.set(Number(o.token_id), {
      resolver: piText(o.resolver),
      userId: piText(o.user_id),
      realm: realmNames.get(Number(o.realm_id)) ?? '',
    });
  const realms = grouped(await db.selectFrom('tokenrealm').select(['token_id', 'realm_id']).execute(), (r) =>
    realmNames.get(Number(r.realm_id)),
  );
  const groups = grouped(
    await db.selectFrom('tokentokengroup').select(['token_id', 'tokengroup_id']).execute(),
    (r) => groupNames.get(Number(r.tokengroup_id)),
  );
  return { owners, realms, groups, containers: await containersOf(source.db) };
}

/** The container serial of every token in one; none before privacyIDEA 3.10 (no such tables). */
async function containersOf(db: ImportInput['source']['db']): Promise<Map<number, string>> {
  let rows: Array<{ token_id: unknown; serial: unknown }>;
  try {
    rows = await db
      .selectFrom('tokencontainertoken')
      .innerJoin('tokencontainer', 'tokencontainer.id', 'tokencontainertoken.container_id')
      .select(['tokencontainertoken.token_id as token_id', 'tokencontainer.serial as serial'])
      .execute();
  } catch {
    return new Map();
  }
  return new Map(rows.map((r) => [Number(r.token_id), piText(r.serial)]));
}

function grouped<R extends { token_id: unknown }>(
  rows: readonly R[],
  nameOf: (r: R) => string | undefined,
): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const r of rows) {
    const name = nameOf(r);
    if (name === undefined) continue;
    const list = out.get(Number(r.token_id)) ?? [];
    list.push(name);
    out.set(Number(r.token_id), list);
  }
  return out;
}
