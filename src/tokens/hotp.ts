// HOTP (RFC 4226; reference 4.5): counters count … count+count_window−1 are tried; a match at c
// stores c+1, so no value is accepted twice.

import { findCounter, REPLAY_LOOKBACK } from './oath.ts';
import { hashlibOf, importedHashlib, OathTokenType, oathPolicyActions } from './oath-type.ts';
import type {
  AutoResyncStep,
  EnrollRequest,
  ImportedToken,
  OtpMatch,
  TokenFileEntry,
  TokenState,
} from './token-type.ts';

export class HotpType extends OathTokenType {
  readonly type = 'hotp';
  readonly prefix = 'OATH';
  readonly description = 'HOTP: Event based One Time Passwords';
  override readonly policyActions = oathPolicyActions('hotp');
  override readonly parameterDefaults = { hashlib: 'hotp_hashlib', otplen: 'hotp_otplen' };
  override readonly verifiableEnrollment = true;
  override readonly twoStepEnrollment = true;
  override readonly otpSearchable = true;
  override readonly importable = true;

  protected uriExtras(): [string, string][] {
    return [];
  }

  protected enrollInfo(_req: EnrollRequest): Record<string, string> {
    return {};
  }

  checkOtp(token: TokenState, otp: string): OtpMatch | null {
    return this.matchAhead(token, otp, token.countWindow);
  }

  /**
   * The counter among the next `window` ones whose value is `otp`: what checkOtp does with
   * count_window, and /token/getserial with its `window` parameter (reference 3.5).
   */
  matchAhead(token: TokenState, otp: string, window: number): OtpMatch | null {
    if (otp.length !== token.otplen || !/^\d+$/.test(otp)) return null;
    const c = findCounter(token.key(), otp, token.count, window, token.otplen, hashlibOf(token));
    return c < 0 ? null : { counter: c, newCount: c + 1 };
  }

  /** Values within the sync window, for resync (reference 4.5). */
  findInSyncWindow(token: TokenState, otp: string): number {
    if (otp.length !== token.otplen) return -1;
    return findCounter(token.key(), otp, token.count, token.syncWindow, token.otplen, hashlibOf(token));
  }

  /**
   * AutoResync (reference 4.5): a value beyond the window but within the sync window is remembered
   * (`otp1c`, `dueDate` in Unix seconds) and fails; the value right after it, before dueDate,
   * succeeds. Any later value within the sync window forgets what was remembered.
   */
  override autoResync(token: TokenState, otp: string, now: Date, timeoutSeconds: number): AutoResyncStep {
    const c = /^\d+$/.test(otp) ? this.findInSyncWindow(token, otp) : -1;
    if (c < 0) return { match: null };
    const seconds = Math.floor(now.getTime() / 1000);
    if (token.info.otp1c === undefined)
      return { match: null, remember: { otp1c: String(c), dueDate: String(seconds + timeoutSeconds) } };
    const consecutive = Number(token.info.otp1c) + 1 === c;
    const due = Number(token.info.dueDate);
    const inTime = Number.isFinite(due) && seconds < due;
    return { match: consecutive && inTime ? { counter: c, newCount: c + 1 } : null, forget: true };
  }

  override counterValues(token: TokenState, from: number, n: number): string[] {
    return Array.from({ length: n }, (_, i) => this.value(token, from + i));
  }

  override previousOtp(token: TokenState): string | undefined {
    return token.count > 0 ? this.value(token, token.count - 1) : undefined;
  }

  /** A value of a counter before the token's count (each of those was spent or skipped). */
  override usedOtp(token: TokenState, otp: string): boolean {
    if (token.count <= 0 || otp.length !== token.otplen || !/^\d+$/.test(otp)) return false;
    const from = Math.max(0, token.count - REPLAY_LOOKBACK);
    return findCounter(token.key(), otp, from, token.count - from, token.otplen, hashlibOf(token)) >= 0;
  }

  protected override uriCounter(): [string, string][] {
    return [['counter', '1']];
  }

  /** /token/resync (reference 4.5): otp1 within the sync window and otp2 right after it. */
  override resync(token: TokenState, otp1: string, otp2: string): OtpMatch | null {
    const c = this.findInSyncWindow(token, otp1);
    if (c < 0 || findCounter(token.key(), otp2, c + 1, 1, token.otplen, hashlibOf(token)) !== c + 1)
      return null;
    return { counter: c + 1, newCount: c + 2 };
  }

  /** /token/getserial: the next `window` counters. */
  override searchOtp(token: TokenState, otp: string, window: number): OtpMatch | null {
    return this.matchAhead(token, otp, window);
  }

  /** A token file gives the hashlib and the counter. */
  override importedToken(entry: TokenFileEntry): ImportedToken | string {
    const info = importedHashlib(entry);
    return typeof info === 'string' ? info : { info, count: entry.counter ?? 0 };
  }
}
