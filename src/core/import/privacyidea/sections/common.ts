// What several sections share: privacyIDEA's booleans and Key/Value tables, its encrypted values,
// and the trial of a service call that tells in plan() whether the service would refuse an object.
import { AuthsrvError } from '../../../../errors.ts';
import { rehearse } from '../../../../store/index.ts';
import type { Context } from '../../../context.ts';
import type { PiKeys } from '../keys.ts';
import type { ImportInput, ImportSection } from '../section.ts';
import type { PiDatabase } from '../source.ts';
import { piText } from '../values.ts';

// The sections read privacyIDEA's values through these (values.ts), with the helpers below.
export { piBool, piText } from '../values.ts';

import { existingNames } from './existing.ts';

/** The same order on every dialect (a database's collation orders mixed case its own way). */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface PiKeyValue {
  key: string;
  value: string;
  type: string;
}

/**
 * The rows of a privacyIDEA Key/Value table (resolver-, caconnector-, machineresolver-,
 * eventhandler- and smsgatewayoption …) by the id of the object they belong to.
 */
export async function keyValuesByOwner(
  db: PiDatabase,
  table: string,
  ownerColumn: string,
  options: { key?: string; value?: string; type?: string } = {},
): Promise<Map<number, PiKeyValue[]>> {
  const key = options.key ?? 'Key';
  const value = options.value ?? 'Value';
  const columns = [ownerColumn, key, value, ...(options.type === undefined ? [] : [options.type])];
  const rows = await db.selectFrom(table).select(columns).orderBy('id').execute();
  const out = new Map<number, PiKeyValue[]>();
  for (const r of rows) {
    const owner = Number(r[ownerColumn]);
    const list = out.get(owner) ?? [];
    list.push({
      key: piText(r[key]),
      value: piText(r[value]),
      type: options.type === undefined ? '' : piText(r[options.type]),
    });
    out.set(owner, list);
  }
  return out;
}

/**
 * A "password"-typed value of privacyIDEA (`iv:ct`, the config key) in clear, or the reason it
 * cannot be imported.
 */
export function decryptedValue(
  keys: PiKeys,
  sealed: string,
  what: string,
): { value: string } | { refusal: string } {
  if (sealed === '') return { value: '' };
  const value = keys.configValue(sealed);
  if (value === undefined)
    return { refusal: `${what} cannot be decrypted with the key file (PI_ENCFILE) given` };
  return { value };
}

/**
 * Whether `write` (a service call) would refuse, rehearsed in a transaction of its own that is
 * always rolled back: the refusal's message, or undefined when it would store the object. plan()
 * asks this, so that an object a service refuses is reported as skipped and never fails the
 * import's one transaction (on PostgreSQL a failed statement aborts all of it). Errors other than
 * authsrv's own refusals are thrown.
 */
export async function refusalOf(
  ctx: Context,
  write: (inner: Context) => Promise<unknown>,
): Promise<string | undefined> {
  try {
    await rehearse(ctx.store, (trx) => write({ ...ctx, store: { ...ctx.store, db: trx } }));
    return undefined;
  } catch (e) {
    if (e instanceof AuthsrvError) return e.message;
    throw e;
  }
}

/** What plan() found for one object: written later, or skipped for the reason given. */
export interface Planned<T> {
  object: string;
  item?: T;
  refusal?: string;
}

/** The objects and skipped entries of planned items, and the items to write (in order). */
export function split<T>(planned: Planned<T>[]): {
  objects: string[];
  skipped: { object: string; reason: string }[];
  items: Array<{ object: string; item: T }>;
} {
  const items = planned.filter((p) => p.refusal === undefined && p.item !== undefined) as Array<{
    object: string;
    item: T;
  }>;
  return {
    objects: items.map((p) => p.object),
    skipped: planned
      .filter((p) => p.refusal !== undefined)
      .map((p) => ({ object: p.object, reason: p.refusal as string })),
    items,
  };
}

/** A section whose objects are each written by one service call (most of them). */
export interface ServiceSectionSpec<T> {
  name: string;
  /** Every object of privacyIDEA's tables, with what to write or why it is not imported. */
  read(input: ImportInput, ctx: Context): Promise<Planned<T>[]>;
  /** Which of the objects authsrv already holds: their names as `read` gave them. */
  existing(ctx: Context, planned: ReadonlyArray<{ object: string; item: T }>): Promise<string[]>;
  /** The service call that stores one object. */
  write(ctx: Context, item: T): Promise<unknown>;
  /** The call plan() tries instead of `write` (default: `write`), for what refers to objects written by earlier sections. */
  trial?: (ctx: Context, item: T) => Promise<unknown>;
}

export function serviceSection<T>(spec: ServiceSectionSpec<T>): ImportSection {
  return {
    name: spec.name,
    async plan(input, ctx) {
      const planned = await spec.read(input, ctx);
      const candidates = split(planned).items;
      const conflicts = candidates.length ? await spec.existing(ctx, candidates) : [];
      // An object authsrv holds already is a conflict: the import is refused, no trial needed.
      const taken = new Set(conflicts);
      const tryIt = spec.trial ?? spec.write;
      for (const p of planned) {
        if (p.item === undefined || p.refusal !== undefined || taken.has(p.object)) continue;
        const item = p.item;
        const refusal = await refusalOf(ctx, (inner) => tryIt(inner, item));
        if (refusal !== undefined) p.refusal = refusal;
      }
      const { objects, skipped, items } = split(planned);
      return {
        objects,
        skipped,
        conflicts,
        async write(inner, progress) {
          for (const [i, { item }] of items.entries()) {
            await spec.write(inner, item);
            progress(i + 1);
          }
        },
      };
    },
  };
}

/** `existing` of a section whose object names are the values of one column of authsrv's table. */
export function namesIn<T>(
  table: Parameters<typeof existingNames>[1],
  column: string,
): ServiceSectionSpec<T>['existing'] {
  return (ctx, planned) =>
    existingNames(
      ctx,
      table,
      column,
      planned.map((p) => p.object),
    );
}
