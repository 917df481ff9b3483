// CA connector definitions (/caconnector/, reference 8.5): a name, a CA type and the type's
// configuration. A configuration is opened by its type before it is stored, so that a missing or
// unreadable file, a key that does not match its certificate or a templates file that does not
// parse is refused and nothing is written. Password-typed values are sealed by the security
// module, leave only as __CENSORED__, and __CENSORED__ (or no value) sent back keeps them, unless
// the request points them at another key file (the rule of secret-reuse.ts).
import type { Transaction } from 'kysely';
import { type CaType, caType, caTypeNames, parseTemplates, type TemplateView } from '../../ca-types/index.ts';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { checkName } from '../plugin-settings/index.ts';
import { checkSecretReuse } from '../secret-reuse.ts';
import { CENSORED } from '../system/index.ts';

/** GET /caconnector/'s view of a connector. */
export interface CaConnectorView {
  connectorname: string;
  type: string;
  data: Record<string, string>;
  templates: Record<string, TemplateView>;
}

/** GET /system/names/caconnector's view: no configuration. */
export interface CaConnectorName {
  connectorname: string;
  type: string;
  templates: Record<string, TemplateView>;
}

/** A stored connector with its configuration in clear. */
export interface CaConnector {
  id: number;
  name: string;
  type: string;
  config: Record<string, string>;
}

type Reader = Pick<Runtime['store'], 'db'>['db'] | Transaction<Database>;

async function load(db: Reader, rt: Runtime, name: string): Promise<CaConnector | undefined> {
  const row = await db.selectFrom('caconnector').selectAll().where('name', '=', name).executeTakeFirst();
  if (!row) return undefined;
  const rows = await db
    .selectFrom('caconnectorconfig')
    .selectAll()
    .where('caconnector_id', '=', row.id)
    .orderBy('key')
    .execute();
  const config: Record<string, string> = {};
  for (const r of rows) config[r.key] = Number(r.sealed) === 1 ? rt.hsm.decrypt(r.value) : r.value;
  return { id: Number(row.id), name: row.name, type: row.catype, config };
}

/** A connector with its configuration in clear, or undefined. */
export function findCaConnector(rt: Runtime, name: string): Promise<CaConnector | undefined> {
  return load(rt.store.db, rt, name);
}

/** A connector that must exist. */
export async function requireCaConnector(rt: Runtime, name: string): Promise<CaConnector> {
  const c = await findCaConnector(rt, name);
  if (!c) throw new ResourceNotFoundError(`The CA connector ${name} does not exist.`);
  return c;
}

function secretKeys(type: CaType): Set<string> {
  return new Set(
    Object.entries(type.options)
      .filter(([, spec]) => spec.type === 'password')
      .map(([k]) => k),
  );
}

/** The templates of a stored configuration, {} when its file is gone or broken (listing never fails). */
function templatesOf(rt: Runtime, config: Readonly<Record<string, string>>): Record<string, TemplateView> {
  if (!config.templates) return {};
  try {
    return parseTemplates(rt.files.read(config.templates, 'templates').toString('utf8'));
  } catch {
    return {};
  }
}

function censored(c: CaConnector): Record<string, string> {
  const secrets = (() => {
    try {
      return secretKeys(caType(c.type));
    } catch {
      return new Set<string>();
    }
  })();
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(c.config)) data[k] = secrets.has(k) ? CENSORED : v;
  return data;
}

async function all(rt: Runtime, name?: string): Promise<CaConnector[]> {
  let q = rt.store.db.selectFrom('caconnector').select('name').orderBy('name');
  if (name) q = q.where('name', '=', name);
  const out: CaConnector[] = [];
  for (const row of await q.execute()) {
    const c = await findCaConnector(rt, row.name);
    if (c) out.push(c);
  }
  return out;
}

/** GET /caconnector/ and /caconnector/<name>: the connectors, passwords censored. */
export async function listCaConnectors(rt: Runtime, name?: string): Promise<CaConnectorView[]> {
  return (await all(rt, name)).map((c) => ({
    connectorname: c.name,
    type: c.type,
    data: censored(c),
    templates: templatesOf(rt, c.config),
  }));
}

/** GET /system/names/caconnector: names, types and templates, no configuration. */
export async function caConnectorNames(rt: Runtime): Promise<CaConnectorName[]> {
  return (await all(rt)).map((c) => ({
    connectorname: c.name,
    type: c.type,
    templates: templatesOf(rt, c.config),
  }));
}

/**
 * GET /caconnector/specific/<catype>: the options of the type, and the templates of the given
 * configuration's templates file (none when it names none).
 */
export function caConnectorSpecific(
  rt: Runtime,
  catype: string,
  config: Readonly<Record<string, string>>,
): { options: CaType['options']; templates: Record<string, TemplateView> } {
  const type = caType(catype);
  const templates = config.templates
    ? parseTemplates(rt.files.read(config.templates, 'templates').toString('utf8'))
    : {};
  return { options: type.options, templates };
}

const MAX_VALUE_CHARS = 4096;

/** The configuration a request gives, checked against the type's options. */
function checkedConfig(type: CaType, given: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(given)) {
    if (!Object.hasOwn(type.options, k))
      throw new ParameterError(
        `Unknown option '${k}' of CA type ${type.name}: use ${Object.keys(type.options).join(', ')}`,
      );
    if (v.length > MAX_VALUE_CHARS || v.includes('\u0000'))
      throw new ParameterError(`The value of '${k}' is too long or contains a NUL character`);
    if (v !== '') out[k] = v;
  }
  for (const [k, spec] of Object.entries(type.options))
    if (spec.required && out[k] === undefined) throw ParameterError.missing(k);
  return out;
}

/** Passwords given as __CENSORED__ or not at all are the stored ones, for the same destination. */
function withKeptSecrets(
  type: CaType,
  config: Record<string, string>,
  given: Readonly<Record<string, string>>,
  old: CaConnector | undefined,
): Record<string, string> {
  const secrets = secretKeys(type);
  const out = { ...config };
  const specs: Record<string, { type: string; destination?: readonly string[] }> = {};
  for (const [k, spec] of Object.entries(type.options))
    specs[k] = spec.type === 'password' ? { type: 'password', destination: ['cakey'] } : { type: spec.type };
  for (const k of secrets) {
    const kept = given[k] === undefined || given[k] === CENSORED;
    if (!kept) continue;
    const stored = old && old.type === type.name ? old.config[k] : undefined;
    if (stored === undefined) {
      if (given[k] === CENSORED) throw new ParameterError(`${k} is ${CENSORED} but no ${k} is stored`);
      delete out[k];
      continue;
    }
    out[k] = stored;
  }
  if (old && old.type === type.name)
    checkSecretReuse({
      specs,
      stored: old.config,
      requested: out,
      secrets,
      given: new Set([...secrets].filter((k) => given[k] !== undefined && given[k] !== CENSORED)),
    });
  return out;
}

/**
 * POST /caconnector/<name>: creates the connector or replaces its configuration with the given
 * one (passwords kept as above). The configuration is opened first: nothing broken is stored.
 * Returns the connector's id.
 */
export async function setCaConnector(
  ctx: Context,
  name: string,
  catype: string | undefined,
  given: Readonly<Record<string, string>>,
): Promise<number> {
  checkName('CA connector', name);
  if (!catype) throw ParameterError.missing('type');
  checkLength('type', catype, LIMITS.name);
  const type = caType(catype);
  const old = await findCaConnector(ctx, name);
  const config = withKeptSecrets(type, checkedConfig(type, given), given, old);
  await type.open(config, ctx.files);
  const secrets = secretKeys(type);
  return runTransaction(ctx.store, async (trx) => {
    const existing = await trx
      .selectFrom('caconnector')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirst();
    let id: number;
    if (existing) {
      id = Number(existing.id);
      await trx.updateTable('caconnector').set({ catype: type.name }).where('id', '=', id).execute();
      await trx.deleteFrom('caconnectorconfig').where('caconnector_id', '=', id).execute();
    } else {
      await trx.insertInto('caconnector').values({ name, catype: type.name }).execute();
      const row = await trx
        .selectFrom('caconnector')
        .select('id')
        .where('name', '=', name)
        .executeTakeFirstOrThrow();
      id = Number(row.id);
    }
    for (const [key, value] of Object.entries(config)) {
      const sealed = secrets.has(key);
      await trx
        .insertInto('caconnectorconfig')
        .values({
          caconnector_id: id,
          key,
          value: sealed ? ctx.hsm.encrypt(value) : value,
          sealed: sealed ? 1 : 0,
        })
        .execute();
    }
    return id;
  });
}

/** DELETE /caconnector/<name>: the id of the deleted connector; an unknown name is an error. */
export async function deleteCaConnector(ctx: Context, name: string): Promise<number> {
  return runTransaction(ctx.store, async (trx) => {
    const row = await trx.selectFrom('caconnector').select('id').where('name', '=', name).executeTakeFirst();
    if (!row) throw new ResourceNotFoundError(`The CA connector ${name} does not exist.`);
    const id = Number(row.id);
    await trx.deleteFrom('caconnectorconfig').where('caconnector_id', '=', id).execute();
    await trx.deleteFrom('carevoked').where('caconnector_id', '=', id).execute();
    await trx.deleteFrom('caconnector').where('id', '=', id).execute();
    return id;
  });
}

export { caTypeNames };
