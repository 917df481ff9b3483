// HOTP (RFC 4226; reference 4.5): counters count … count+count_window−1 are tried; a match at c
// stores c+1, so no value is accepted twice.

import { findCounter } from './oath.ts';
import { hashlibOf, OathTokenType } from './oath-type.ts';
import type { EnrollRequest, OtpMatch, TokenState } from './token-type.ts';

export class HotpType extends OathTokenType {
  readonly type = 'hotp';
  readonly prefix = 'OATH';
  readonly description = 'HOTP: Event based One Time Passwords';

  protected uriExtras(): [string, string][] {
    return [];
  }

  protected enrollInfo(_req: EnrollRequest): Record<string, string> {
    return {};
  }

  checkOtp(token: TokenState, otp: string): OtpMatch | null {
    if (otp.length !== token.otplen || !/^\d+$/.test(otp)) return null;
    const c = findCounter(token.key(), otp, token.count, token.countWindow, token.otplen, hashlibOf(token));
    return c < 0 ? null : { counter: c, newCount: c + 1 };
  }

  /** Values within the sync window, for resync (reference 4.5). */
  findInSyncWindow(token: TokenState, otp: string): number {
    if (otp.length !== token.otplen) return -1;
    return findCounter(token.key(), otp, token.count, token.syncWindow, token.otplen, hashlibOf(token));
  }

  override previousOtp(token: TokenState): string | undefined {
    return token.count > 0 ? this.value(token, token.count - 1) : undefined;
  }
}
