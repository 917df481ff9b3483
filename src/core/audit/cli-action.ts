// The audit row of a state-changing CLI command (`CLI <command>`): who ran it (the caller, the
// local operator), the user agent authsrv-cli, the command's detail, and the columns the API
// would fill for the same action.
import type { Context } from '../context.ts';
import type { AuditEntry } from './columns.ts';
import { newAuditEntry, writeAudit } from './write.ts';

/**
 * The columns of a CLI action's row the API fills for the same action (user, realm, serial …);
 * from a result also its outcome (an authentication's verdict is its success).
 */
export type CliActionFields = Partial<
  Pick<
    AuditEntry,
    'user' | 'realm' | 'resolver' | 'serial' | 'token_type' | 'client' | 'authentication' | 'info' | 'success'
  >
>;

export interface CliAction {
  /** The command, e.g. `db upgrade`; the row's action is `CLI db upgrade`. */
  command: string;
  /** What it did (the row's info; a failure's message is added to it). */
  detail: string;
  fields?: CliActionFields;
}

function cliEntry(ctx: Context, action: CliAction, startedAt: Date): AuditEntry {
  const entry = newAuditEntry(`CLI ${action.command}`, startedAt);
  Object.assign(entry, action.fields);
  entry.administrator = ctx.caller.username;
  entry.user_agent = 'authsrv-cli';
  entry.info = action.detail;
  return entry;
}

/**
 * Writes the row of a command that has already succeeded, started at `startedAt` (for a command
 * that cannot write its row before it is done: `db upgrade` creates the audit table).
 */
export async function recordCliAction(ctx: Context, action: CliAction, startedAt: Date): Promise<void> {
  const entry = cliEntry(ctx, action, startedAt);
  entry.success = true;
  await writeAudit(ctx, entry);
}

/**
 * Runs a command and writes its row, successful or not; `fromResult` gives the columns known only
 * from the result (a generated serial; the verdict of an authentication).
 */
export async function auditedCliAction<T>(
  ctx: Context,
  action: CliAction,
  run: () => Promise<T>,
  fromResult?: (result: T) => CliActionFields,
): Promise<T> {
  const entry = cliEntry(ctx, action, ctx.clock());
  try {
    const result = await run();
    entry.success = true;
    if (fromResult) Object.assign(entry, fromResult(result));
    return result;
  } catch (e) {
    entry.info = `${action.detail} ${(e as Error).message}`.trim();
    throw e;
  } finally {
    await writeAudit(ctx, entry);
  }
}
