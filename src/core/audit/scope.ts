// Which audit rows and columns the caller may see (reference 7.4): users only their own rows;
// administrators whose granting policies all name realms only rows of those realms plus the rows
// of their own requests (by administrator name); `auditlog_age` caps the time span and `hide_audit_columns` hides columns.
// The restriction comes from the caller's policies, never from request parameters.
import { parseDuration } from '../../config/index.ts';
import { PolicyError } from '../../errors.ts';
import { actionValue, actionValues, grantedRealms } from '../access/index.ts';
import type { Context } from '../context.ts';
import type { AuditQuery, AuditRestriction } from './query.ts';

function seconds(span: string, what: string): number {
  try {
    return parseDuration(span);
  } catch {
    throw new PolicyError(`The ${what} '${span}' is not a time span such as 30d or 12h.`);
  }
}

/** The query narrowed to what the caller may see; `action` is the right the endpoint checked. */
export async function scopeToCaller(
  ctx: Context,
  query: AuditQuery,
  action: 'auditlog' | 'auditlog_download',
): Promise<AuditQuery> {
  const restriction: AuditRestriction = {};
  const { caller } = ctx;
  if (caller.role === 'user') {
    restriction.owner = { user: caller.username, realm: caller.realm };
  } else {
    // The download shows no more than the list: both rights' realms apply.
    let realms = await grantedRealms(ctx, 'auditlog');
    if (action === 'auditlog_download') {
      const download = await grantedRealms(ctx, action);
      if (download) realms = realms ? realms.filter((r) => download.includes(r)) : download;
    }
    if (realms) restriction.realms = { realms, administrator: caller.username };
  }
  let timelimit = query.timelimit;
  const age = await actionValue(ctx, 'auditlog_age');
  if (age !== undefined) {
    const max = seconds(age, 'policy value auditlog_age');
    if (timelimit === undefined || parseDuration(timelimit) > max) timelimit = age;
  }
  if (action === 'auditlog') {
    const hidden = [...(await actionValues(ctx, 'hide_audit_columns')).keys()];
    if (hidden.length) restriction.hiddenColumns = hidden;
  }
  return { ...query, timelimit, restriction };
}
