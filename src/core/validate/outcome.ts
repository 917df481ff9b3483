// What an authentication answered, for every front end that renders it: result.authentication of
// the envelope, the audit row's authentication column, a RADIUS server's Access-Accept/-Challenge/
// -Reject, the CLI's verdict; and the audit columns of a check.
import type { CheckAudit } from './request.ts';

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
  success: boolean;
}

/** A check's or a triggered challenge's result: the verdict (a check) or the challenges created (a trigger). */
interface AuditedAnswer {
  value: boolean | number;
  detail?: Record<string, unknown> | undefined;
  audit: CheckAudit;
}

/**
 * The audit columns of a check or a triggered challenge (the API's row and the CLI's alike): the
 * user found (else the one named), the deciding token, the message, the answer, and the success
 * privacyIDEA records: a check's is its verdict (a REJECT or a CHALLENGE is no success, which is
 * what failed-login reports and SIEM queries count), a trigger's whether it created challenges.
 */
export function checkAuditColumns(res: AuditedAnswer): CheckColumns {
  const a = res.audit;
  return {
    user: a.user,
    realm: a.realm,
    resolver: a.resolver,
    serial: a.serial,
    token_type: a.tokenType,
    info: a.info,
    authentication: answerOf(res),
    success: res.value === true || (typeof res.value === 'number' && res.value > 0),
  };
}

/** The audit columns of a poll: the transaction, the answer, and success when the challenge was answered. */
export function pollAuditColumns(
  res: Answered & { value: boolean },
  transactionId: string,
): { info: string; authentication: CheckAnswer; success: boolean } {
  return { info: `transaction_id: ${transactionId}`, authentication: answerOf(res), success: res.value };
}
