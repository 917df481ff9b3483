// TAN list (reference 3.1, 4.5): one-time values printed on paper and usable in any order. The
// unused TANs are the token's sealed secret (a JSON list); a check that uses one returns the list
// without it as the new secret, which the store writes in the compare-and-set of the counter, so
// a TAN is accepted at most once however many requests carry it.
//
// An entry of the list is a TAN, or a TAN as privacyIDEA stores it (carried over by `authsrv
// import privacyidea`, which cannot know the TAN itself): `<8 hex salt>:<hex SHA-256 of the TAN
// followed by the salt's hex text>`. A TAN holds no ':', so the two forms never meet.
import { createHash } from 'node:crypto';
import { ParameterError } from '../errors.ts';
import { intAction } from '../policy/index.ts';
import { countOf, otplenOf } from './enrollment.ts';
import { sameOtp } from './oath.ts';
import { carriedInfo, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import { randomOf, type TypeRandom } from './random.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

const COUNT = { fallback: 100, max: 1000, what: 'TANs' };

/** The TANs left on a token (an empty or unreadable secret has none). */
export function tansOf(token: TokenState): string[] {
  const key = token.key();
  if (key.length === 0) return [];
  try {
    const list: unknown = JSON.parse(key.toString('utf8'));
    return Array.isArray(list) ? list.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

const HASHED_TAN = /^([0-9a-f]{8}):([0-9a-f]{64})$/;

/** Whether an entry of the list (a TAN or a salted hash of one) is the TAN `otp`. */
function isTan(entry: string, otp: string): boolean {
  const hashed = HASHED_TAN.exec(entry);
  if (!hashed) return sameOtp(entry, otp);
  const digest = createHash('sha256').update(`${otp}${hashed[1]}`, 'utf8').digest('hex');
  return sameOtp(digest, hashed[2] as string);
}

export function encodeTans(tans: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify(tans), 'utf8');
}

function randomTans(count: number, digits: number, random: TypeRandom): string[] {
  const out = new Set<string>();
  while (out.size < count) {
    let tan = '';
    for (let i = 0; i < digits; i++) tan += String(random.int(10));
    out.add(tan);
  }
  return [...out];
}

/** privacyIDEA's tokeninfo key of an unused TAN's salted hash. */
const PI_TAN_KEY = /^tan\.tan(\d+)$/;

export class TanType extends TokenType {
  readonly type = 'tan';
  readonly prefix = 'PITN';
  readonly description = 'TAN: TANs printed on a sheet of paper.';
  override readonly policyActions = {
    enrollment: { tantoken_count: intAction('Number of TANs of a TAN list.', 'token') },
  };
  override readonly enrollmentActions = ['tantoken_count'];

  /**
   * `tans` (separated by spaces or commas; all of one length, which becomes the otplen) or a
   * generated list of TANs of `otplen` (6 or 8) digits: as many as the enrollment policy
   * `tantoken_count` says (it wins over the request, as privacyIDEA's pre-policy overwrites the
   * parameter), else the parameter `tantoken_count` or `tancount`, 100 by default.
   */
  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const p = req.params;
    let tans: string[];
    if (p.tans !== undefined) {
      tans = p.tans.split(/[\s,]+/).filter(Boolean);
      if (tans.length === 0) throw new ParameterError('The parameter tans contains no TAN');
      const len = (tans[0] as string).length;
      if (tans.some((t) => t.length !== len)) throw new ParameterError('All TANs must have the same length');
      if (len > 64) throw new ParameterError('A TAN must not be longer than 64 characters');
      if (new Set(tans).size !== tans.length) throw new ParameterError('The TANs must be distinct');
    } else {
      const count = countOf(req, 'tantoken_count', ['tantoken_count', 'tancount'], COUNT);
      tans = randomTans(count, otplenOf(req), randomOf(req.random));
    }
    return {
      key: encodeTans(tans),
      otplen: (tans[0] as string).length,
      info: {},
      // privacyIDEA's paper-token detail `otps` (index → value) and the plain list.
      detail: { tans, otps: Object.fromEntries(tans.map((t, i) => [String(i), t])) },
    };
  }

  checkOtp(token: TokenState, otp: string): OtpMatch | null {
    if (otp.length !== token.otplen) return null;
    const tans = tansOf(token);
    let found = -1;
    // Every TAN is compared, so the time does not tell where (or whether) the value matched.
    for (const [i, tan] of tans.entries()) if (isTan(tan, otp) && found < 0) found = i;
    if (found < 0) return null;
    return {
      counter: found,
      newCount: token.count + 1,
      newKey: encodeTans(tans.filter((_, i) => i !== found)),
    };
  }

  /**
   * privacyIDEA keeps the unused TANs as salted hashes (tokeninfo tan.tan<i>), which this type
   * takes as entries of its list (isTan).
   */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    const entries = stored.info
      .map((e) => ({ e, index: PI_TAN_KEY.exec(e.key)?.[1] }))
      .filter((x) => x.index !== undefined)
      .sort((a, b) => Number(a.index) - Number(b.index));
    const tans = entries.map((x) => x.e.value ?? '');
    const drop = new Set(entries.map((x) => x.e.key));
    return { key: tans.length > 0 ? encodeTans(tans) : undefined, info: carriedInfo(stored.info, drop) };
  }
}
