// The RADIUS token (reference 3.1, 4.2.2): its values are checked by a RADIUS server, the
// /radiusserver/ definition named by tokeninfo `radius.identifier`. The user name sent is
// `radius.user`, else the token owner's login. With `radius.local_checkpin` the PIN is checked
// here and only the OTP part is forwarded; without it the whole pass goes to the RADIUS server,
// which checks the PIN itself. An Access-Challenge of the server becomes a challenge of this
// token: its State is kept in the challenge's data and sent back with the answer.
import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import {
  infoValue,
  noSecret,
  type PrivacyideaConversion,
  type PrivacyideaStoredToken,
} from './privacyidea.ts';
import {
  type ChallengeSpec,
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
  type UpstreamCheck,
  type UpstreamResult,
} from './token-type.ts';

/** privacyIDEA's message when the RADIUS server gives none. */
const CHALLENGE_MESSAGE = 'Enter your RADIUS tokencode:';

export class RadiusType extends TokenType {
  readonly type = 'radius';
  readonly prefix = 'PIRA';
  readonly description = 'RADIUS: Forward authentication request to a RADIUS server.';
  override readonly upstream = 'radius';
  override readonly challengeMessage = CHALLENGE_MESSAGE;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const p = req.params;
    const identifier = p['radius.identifier'] ?? '';
    if (identifier === '') {
      // The legacy settings (server and secret in the token) are not kept: a definition holds them.
      if (p['radius.server'] || p['radius.secret'])
        throw new ParameterError(
          'radius.server and radius.secret are not supported: define the server under /radiusserver/ and give its radius.identifier',
        );
      throw ParameterError.missing('radius.identifier');
    }
    const info: Record<string, string> = {
      'radius.identifier': identifier,
      'radius.local_checkpin': isTrue(p['radius.local_checkpin']) ? '1' : '0',
      tokenkind: 'virtual',
    };
    if (p['radius.user']) info['radius.user'] = p['radius.user'];
    const otplen = p.otplen && /^\d+$/.test(p.otplen) ? Number(p.otplen) : 6;
    return { otplen, info, detail: {} };
  }

  /** Never checked here: checkUpstream forwards the value. */
  checkOtp(): OtpMatch | null {
    return null;
  }

  override pinCheckedLocally(token: TokenState): boolean {
    return isTrue(token.info['radius.local_checkpin']);
  }

  override async checkUpstream(token: TokenState, check: UpstreamCheck): Promise<UpstreamResult> {
    const user = token.info['radius.user'] || check.owner;
    if (!user) return { kind: 'reject', reason: 'the token has no radius.user and no owner' };
    const state = check.challengeData ? Buffer.from(check.challengeData, 'hex') : undefined;
    const answer = await check.ask({
      server: token.info['radius.identifier'] ?? '',
      user,
      password: check.password,
      state: state && state.length > 0 ? state : undefined,
    });
    switch (answer.kind) {
      case 'accept':
        return { kind: 'accept' };
      case 'challenge':
        return { kind: 'challenge', challenge: challengeOf(answer.state, answer.message) };
      case 'failed':
        return { kind: 'reject', reason: answer.reason };
      default:
        return { kind: 'reject' };
    }
  }

  /**
   * privacyIDEA's tokeninfo is this type's (radius.identifier, radius.user, radius.local_checkpin);
   * a token with the legacy radius.server and radius.secret instead of a definition is refused, as
   * enroll refuses it.
   */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    if (infoValue(stored, 'radius.identifier') === '')
      return {
        reason:
          'it names no RADIUS server definition (radius.identifier): its legacy radius.server settings are not supported',
      };
    return noSecret(stored);
  }
}

function challengeOf(state: Buffer, message: string | undefined): ChallengeSpec {
  return { data: state.toString('hex'), message: message || CHALLENGE_MESSAGE };
}
