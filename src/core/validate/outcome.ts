// What an authentication answered, for every front end that renders it: result.authentication of
// the envelope, the audit row's authentication column, a RADIUS server's Access-Accept/-Challenge/
// -Reject, the CLI's verdict; and the audit columns of a check.
import type { CheckAudit, CheckResult } from './request.ts';

/** result.authentication (reference 1.1), also the audit column of the same name. */
export type CheckAnswer = 'ACCEPT' | 'CHALLENGE' | 'REJECT' | 'DECLINED';

/** An answer of /validate or /auth: its value (or `value.auth`) and detail. */
interface Answered {
  value: unknown;
  detail?: Record<string, unknown> | undefined;
}

/**
 * ACCEPT, CHALLENGE (challenges were asked), DECLINED (the user declined a push challenge) or
 * REJECT. The value may be the check's boolean, or an object with `auth` (samlcheck, /auth).
 */
export function answerOf({ value, detail }: Answered): CheckAnswer {
  const v =
    value !== null && typeof value === 'object' && 'auth' in value
      ? (value as { auth: unknown }).auth
      : value;
  if (v === 'CHALLENGE') return 'CHALLENGE';
  const multi = detail?.multi_challenge;
  if ((Array.isArray(multi) && multi.length > 0) || detail?.passkey !== undefined) return 'CHALLENGE';
  if (v) return 'ACCEPT';
  if (detail?.challenge_status === 'declined') return 'DECLINED';
  return 'REJECT';
}

/** The audit columns a check fills. */
export interface CheckColumns {
  user: string;
  realm: string;
  resolver: string;
  serial: string;
  token_type: string;
  info: string;
  authentication: CheckAnswer;
}

/**
 * The audit columns of a check or a triggered challenge (the API's row and the CLI's alike): the
 * user found (else the one named), the deciding token, the message, and the answer.
 */
export function checkAuditColumns(res: Answered & { audit: CheckAudit }): CheckColumns {
  const a = res.audit;
  return {
    user: a.user,
    realm: a.realm,
    resolver: a.resolver,
    serial: a.serial,
    token_type: a.tokenType,
    info: a.info,
    authentication: answerOf(res),
  };
}

/**
 * The columns of the row a CLI command writes for the check it ran: a command answers no request
 * whose success the row could record, so its success is the verdict.
 */
export function commandCheckColumns(res: CheckResult): CheckColumns & { success: boolean } {
  return { ...checkAuditColumns(res), success: res.value };
}
