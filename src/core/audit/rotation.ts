// Rotating the audit log: deleting rows beyond an age or a number (`authsrv audit rotate`), and
// the hourly rotation a server runs when audit.max_age / audit.max_rows ask for it.
import { ParameterError } from '../../errors.ts';
import type { Context, Runtime } from '../context.ts';
import { auditedCliAction } from './cli-action.ts';

export interface RotateResult {
  deletedByAge: number;
  deletedByCount: number;
}

export interface RotateLimits {
  /** Rows older than this go (0 = no limit). */
  maxAgeSeconds: number;
  /** Beyond this, the oldest rows go (0 = no limit). */
  maxRows: number;
}

/** Deletes rows older than `maxAgeSeconds` and, beyond that, the oldest rows over `maxRows`. */
export async function rotateAudit(rt: Runtime, limits: RotateLimits): Promise<RotateResult> {
  const result: RotateResult = { deletedByAge: 0, deletedByCount: 0 };
  if (limits.maxAgeSeconds > 0) {
    const cutoff = new Date(rt.clock().getTime() - limits.maxAgeSeconds * 1000).toISOString();
    const r = await rt.store.db.deleteFrom('audit').where('date', '<', cutoff).executeTakeFirst();
    result.deletedByAge = Number(r.numDeletedRows);
  }
  if (limits.maxRows > 0) {
    // The id of the oldest row to keep; everything before it goes.
    const keep = await rt.store.db
      .selectFrom('audit')
      .select('id')
      .orderBy('id', 'desc')
      .offset(limits.maxRows - 1)
      .limit(1)
      .executeTakeFirst();
    if (keep) {
      const r = await rt.store.db.deleteFrom('audit').where('id', '<', keep.id).executeTakeFirst();
      result.deletedByCount = Number(r.numDeletedRows);
    }
  }
  return result;
}

/**
 * The limits of a rotation run now: those given, the others from the configuration's
 * audit.max_age and audit.max_rows (as the hourly rotation of a server uses them).
 */
function rotationLimits(
  rt: Runtime,
  given: { maxAgeSeconds?: number | undefined; maxRows?: number | undefined } = {},
): RotateLimits {
  return {
    maxAgeSeconds: given.maxAgeSeconds ?? rt.config.audit.maxAgeSeconds,
    maxRows: given.maxRows ?? rt.config.audit.maxRows,
  };
}

/** Whether the limits delete anything at all. */
function hasLimit(limits: RotateLimits): boolean {
  return limits.maxAgeSeconds > 0 || limits.maxRows > 0;
}

/**
 * `authsrv audit rotate`: one rotation now, by the limits given and for the others those of the
 * configuration, with its audit row; refused when there is no limit at all.
 */
export async function rotateAuditNow(
  ctx: Context,
  given: { maxAgeSeconds?: number | undefined; maxRows?: number | undefined },
): Promise<RotateResult> {
  const limits = rotationLimits(ctx, given);
  if (!hasLimit(limits)) {
    throw new ParameterError(
      'No limit given: use --max-age or --max-rows, or set audit.max_age / audit.max_rows',
    );
  }
  const action = { command: 'audit rotate', detail: JSON.stringify(limits) };
  return auditedCliAction(ctx, action, () => rotateAudit(ctx, limits));
}

export const ROTATE_EVERY_MS = 3_600_000;

/** A running rotation; stop() ends it (a rotation under way finishes on its own). */
export interface AuditRotation {
  stop(): void;
}

/**
 * Rotates the audit log every `everyMs` (an hour) by the runtime's audit.max_age and
 * audit.max_rows; without either, nothing runs. A failed rotation is logged and tried again at the
 * next turn; the timer never keeps the process alive.
 */
export function startAuditRotation(rt: Runtime, everyMs = ROTATE_EVERY_MS): AuditRotation {
  const limits = rotationLimits(rt);
  if (!hasLimit(limits)) return { stop() {} };
  const rotate = async () => {
    try {
      const r = await rotateAudit(rt, limits);
      if (r.deletedByAge + r.deletedByCount > 0) rt.log.info(r, 'audit rotated');
    } catch (e) {
      rt.log.error({ err: e }, 'audit rotation failed');
    }
  };
  const timer = setInterval(rotate, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
