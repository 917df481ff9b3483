// The audit columns that name who made a request.
import type { Caller } from '../context.ts';
import type { AuditEntry } from './columns.ts';

/** The columns naming a caller: an administrator as `administrator`, a realm user as `user` in `realm`. */
export type CallerColumns = Partial<Pick<AuditEntry, 'administrator' | 'user' | 'realm'>>;

export function callerColumns(caller: Caller): CallerColumns {
  return caller.role === 'admin'
    ? { administrator: caller.username }
    : { user: caller.username, realm: caller.realm };
}
