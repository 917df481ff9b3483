// TOTP (RFC 6238; reference 4.5): the step of now (+ the learned timeShift) ± timeWindow is tried;
// a step at or before the last accepted one is refused (no value twice), and the drift is learned.
import { ParameterError } from '../errors.ts';
import { findCounter, REPLAY_LOOKBACK } from './oath.ts';
import { hashlibOf, importedHashlib, OathTokenType, oathPolicyActions } from './oath-type.ts';
import type {
  EnrollRequest,
  ImportedToken,
  OtpMatch,
  TokenFileEntry,
  TokenState,
  TypeSettings,
} from './token-type.ts';

function num(v: string | undefined, fallback: number): number {
  const n = v === undefined || v.trim() === '' ? Number.NaN : Number(v);
  return Number.isFinite(n) ? n : fallback;
}

export class TotpType extends OathTokenType {
  readonly type = 'totp';
  readonly prefix = 'TOTP';
  readonly description = 'TOTP: Time based One Time Passwords';
  override readonly policyActions = oathPolicyActions('totp', {
    totp_timestep: {
      type: 'int',
      description: 'Default time step of totp tokens.',
      group: 'totp',
      values: ['30', '60'],
    },
  });
  override readonly parameterDefaults = {
    hashlib: 'totp_hashlib',
    otplen: 'totp_otplen',
    timeStep: 'totp_timestep',
  };
  override readonly verifiableEnrollment = true;
  override readonly twoStepEnrollment = true;
  override readonly otpSearchable = true;
  override readonly importable = true;

  protected uriExtras(info: Record<string, string>): [string, string][] {
    return [['period', info.timeStep ?? '30']];
  }

  protected enrollInfo(req: EnrollRequest): Record<string, string> {
    const step = req.params.timeStep || req.settings.get('totp.timeStep') || '30';
    if (step !== '30' && step !== '60') throw new ParameterError('timeStep must be 30 or 60');
    return {
      timeStep: step,
      timeWindow: req.params.timeWindow || req.settings.get('totp.timeWindow') || '180',
      timeShift: req.params.timeShift || '0',
    };
  }

  private steps(token: TokenState, now: Date) {
    const step = num(token.info.timeStep, 30);
    const window = num(token.info.timeWindow, 180);
    const shift = num(token.info.timeShift, 0);
    const secs = now.getTime() / 1000;
    return { step, secs, current: Math.floor((secs + shift) / step), w: Math.floor(window / step) };
  }

  checkOtp(token: TokenState, otp: string, now: Date): OtpMatch | null {
    return this.matchNear(token, otp, now, this.steps(token, now).w);
  }

  /**
   * The step within ±`window` steps of now (+ timeShift) whose value is `otp`, if it is newer than
   * the last accepted one: what checkOtp does with timeWindow, and /token/getserial with its
   * `window` parameter (a number of steps, reference 3.5).
   */
  matchNear(token: TokenState, otp: string, now: Date, window: number): OtpMatch | null {
    if (otp.length !== token.otplen || !/^\d+$/.test(otp)) return null;
    const { step, secs, current } = this.steps(token, now);
    const c = findCounter(token.key(), otp, current - window, 2 * window, token.otplen, hashlibOf(token));
    if (c < 0 || (token.count !== 0 && c <= token.count)) return null;
    return { counter: c, newCount: c, info: { timeShift: String(c * step - Math.floor(secs)) } };
  }

  override previousOtp(token: TokenState): string | undefined {
    return token.count > 0 ? this.value(token, token.count) : undefined;
  }

  /** A value of a time step at or before the last accepted one (those are refused for good). */
  override usedOtp(token: TokenState, otp: string): boolean {
    if (token.count <= 0 || otp.length !== token.otplen || !/^\d+$/.test(otp)) return false;
    const from = Math.max(0, token.count - REPLAY_LOOKBACK + 1);
    return findCounter(token.key(), otp, from, token.count + 1 - from, token.otplen, hashlibOf(token)) >= 0;
  }

  /**
   * /token/resync (reference 4.5): otp1 and otp2 consecutive within ±sync_window steps of now and
   * newer than the last used step; timeShift is learned from otp2, count = its step + 1.
   */
  override resync(token: TokenState, otp1: string, otp2: string, now: Date): OtpMatch | null {
    if (otp1.length !== token.otplen || otp2.length !== token.otplen) return null;
    if (!/^\d+$/.test(otp1) || !/^\d+$/.test(otp2)) return null;
    const { step, secs, current } = this.steps(token, now);
    const w = token.syncWindow;
    const hashlib = hashlibOf(token);
    const c1 = findCounter(token.key(), otp1, current - w, 2 * w, token.otplen, hashlib);
    if (c1 < 0 || (token.count !== 0 && c1 <= token.count)) return null;
    if (findCounter(token.key(), otp2, c1 + 1, 1, token.otplen, hashlib) !== c1 + 1) return null;
    const c2 = c1 + 1;
    return { counter: c2, newCount: c2 + 1, info: { timeShift: String(c2 * step - Math.floor(secs)) } };
  }

  /** /token/getserial: ±`window` time steps around now. */
  override searchOtp(token: TokenState, otp: string, window: number, now: Date): OtpMatch | null {
    return this.matchNear(token, otp, now, window);
  }

  /** A token file gives the hashlib, time step and drift; the window is the system's. */
  override importedToken(entry: TokenFileEntry, settings: TypeSettings): ImportedToken | string {
    const hashlib = importedHashlib(entry);
    if (typeof hashlib === 'string') return hashlib;
    const info = {
      ...hashlib,
      timeStep: String(entry.timeStep ?? 30),
      timeWindow: settings.get('totp.timeWindow') || '180',
      timeShift: String(entry.timeShift ?? 0),
    };
    return { info, count: 0 };
  }
}
