// Local administrators: stored in the database with an argon2id password hash. They log in at
// /auth with realm '' and are managed with `authsrv admin …`. Every write goes through
// writeSessionTables: creating, deleting and changing the password of an administrator ends the
// sessions of that name (sessions.ts), on every node. Administrators imported from privacyIDEA
// keep its hash of PI_PEPPER + password (the pepper sealed in the row) until their first login,
// which re-hashes the password with authsrv's own scheme.
import { decoyHash, hashPassword, verifyPassword } from '../../crypto/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Context, Runtime } from '../context.ts';
import { charLength, LIMITS } from '../limits.ts';
import { noSuchAdmin, writeSessionTables } from './sessions.ts';

export interface AdminRecord {
  name: string;
  createdAt: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const MIN_PASSWORD_LENGTH = 8;

function checkName(name: string): void {
  if (!NAME.test(name)) {
    throw new ParameterError(
      `Invalid administrator name '${name}': use 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit`,
    );
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ParameterError(`The password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (charLength(password) > LIMITS.password) {
    throw new ParameterError(`The password must have at most ${LIMITS.password} characters`);
  }
}

export async function addAdmin(ctx: Context, name: string, password: string): Promise<AdminRecord> {
  checkName(name);
  checkPassword(password);
  const hash = await hashPassword(password);
  const createdAt = ctx.clock().toISOString();
  const exists = () =>
    ctx.store.db.selectFrom('admin').select('name').where('name', '=', name).executeTakeFirst();
  const duplicate = () => new ParameterError(`Administrator '${name}' already exists`);
  if (await exists()) throw duplicate();
  try {
    // A token of an earlier administrator of this name does not stand for the new one.
    await writeSessionTables(ctx.store, (trx) =>
      trx
        .insertInto('admin')
        .values({ name, password_hash: hash, created_at: createdAt, sessions_valid_after: createdAt })
        .execute(),
    );
  } catch (e) {
    // Another process (a second node starting, a CLI run) inserted the same name in between.
    if (await exists()) throw duplicate();
    throw e;
  }
  return { name, createdAt };
}

export async function listAdmins(ctx: Runtime): Promise<AdminRecord[]> {
  const rows = await ctx.store.db
    .selectFrom('admin')
    .select(['name', 'created_at'])
    .orderBy('name')
    .execute();
  return rows.map((r) => ({ name: r.name, createdAt: r.created_at }));
}

export async function deleteAdmin(ctx: Context, name: string): Promise<void> {
  await writeSessionTables(ctx.store, async (trx) => {
    const r = await trx.deleteFrom('admin').where('name', '=', name).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw noSuchAdmin(name);
  });
}

export async function setAdminPassword(ctx: Context, name: string, password: string): Promise<void> {
  checkPassword(password);
  const hash = await hashPassword(password);
  await writeSessionTables(ctx.store, async (trx) => {
    const r = await trx
      .updateTable('admin')
      .set({ password_hash: hash, password_pepper: null, sessions_valid_after: ctx.clock().toISOString() })
      .where('name', '=', name)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) throw noSuchAdmin(name);
  });
}

/** True when `name` is a local administrator with this password. Costs the same when it is not. */
export async function verifyAdmin(ctx: Runtime, name: string, password: string): Promise<boolean> {
  const row = await ctx.store.db
    .selectFrom('admin')
    .select(['password_hash', 'password_pepper'])
    .where('name', '=', name)
    .executeTakeFirst();
  const pepper = row?.password_pepper ? ctx.hsm.decrypt(row.password_pepper) : '';
  const ok = await verifyPassword(pepper + password, row?.password_hash ?? (await decoyHash()));
  if (!row || !ok) return false;
  if (row.password_pepper) await rehashImported(ctx, name, row.password_hash, password);
  return true;
}

/**
 * An imported hash that just verified is replaced by authsrv's own of the password alone. Only
 * while the row still holds that hash: a password changed in between stays. Sessions stand.
 */
async function rehashImported(ctx: Runtime, name: string, imported: string, password: string): Promise<void> {
  const hash = await hashPassword(password);
  await writeSessionTables(ctx.store, (trx) =>
    trx
      .updateTable('admin')
      .set({ password_hash: hash, password_pepper: null })
      .where('name', '=', name)
      .where('password_hash', '=', imported)
      .execute(),
  );
}

/** An administrator of another system, as imported: its hash (argon2id PHC) and the pepper it was made with. */
export interface ImportedAdmin {
  name: string;
  /** An argon2id PHC string of `pepper + password`. */
  hash: string;
  pepper: string;
}

/** Why an imported administrator cannot be stored as it is, or undefined when it can. */
export function importedAdminRefusal(admin: ImportedAdmin): string | undefined {
  if (!NAME.test(admin.name))
    return 'authsrv administrator names are 1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';
  if (!admin.hash.startsWith('$argon2id$'))
    return 'the password hash is not argon2id (authsrv verifies no other scheme): set a new password with `authsrv admin password`';
  return undefined;
}

/** Stores an imported administrator (in the caller's transaction when there is one); see importedAdminRefusal. */
export async function addImportedAdmin(ctx: Context, admin: ImportedAdmin): Promise<void> {
  const refusal = importedAdminRefusal(admin);
  if (refusal) throw new ParameterError(`Administrator '${admin.name}': ${refusal}`);
  const createdAt = ctx.clock().toISOString();
  await writeSessionTables(ctx.store, (trx) =>
    trx
      .insertInto('admin')
      .values({
        name: admin.name,
        password_hash: admin.hash,
        password_pepper: admin.pepper === '' ? null : ctx.hsm.encrypt(admin.pepper),
        created_at: createdAt,
        sessions_valid_after: createdAt,
      })
      .execute(),
  );
}

/**
 * On a database without administrators, creates `admin` with a random password and returns that
 * password (to be shown once); otherwise returns undefined.
 */
export async function ensureInitialAdmin(ctx: Context): Promise<string | undefined> {
  const any = await ctx.store.db.selectFrom('admin').select('name').limit(1).executeTakeFirst();
  if (any) return undefined;
  const password = ctx.random.bytes(18).toString('base64url');
  try {
    await addAdmin(ctx, 'admin', password);
  } catch (e) {
    if (e instanceof ParameterError) return undefined; // another node created it first
    throw e;
  }
  return password;
}
