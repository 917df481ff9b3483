// 4eyes (reference 3.1): a meta token for the two-man rule. It has no secret of its own; it
// authenticates when enough distinct assigned tokens from the realms it names were presented
// (tokeninfo `4eyes` = `realm1:2,realm2:1`). In one step the pass is those tokens' PIN+OTP values
// joined by the token's `separator` (the 4eyes PIN is not part of it, as in privacyIDEA); sending
// only the 4eyes PIN, or fewer tokens than needed, starts a challenge answered a token at a time.
// The token service checks the presented tokens (src/core/four-eyes.ts).
import { ParameterError } from '../errors.ts';
import { jsonObject } from './json-object.ts';
import {
  infoValue,
  noSecret,
  type PrivacyideaConversion,
  type PrivacyideaStoredToken,
} from './privacyidea.ts';
import {
  type ChallengeOptions,
  type ChallengeSpec,
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

const FORM = "The parameter '4eyes' must name realms with the number of tokens each, e.g. realm1:2,realm2:1";

/** Serials of the tokens presented so far, per realm. */
export type Eyes = Record<string, string[]>;

/** The required number of tokens per realm, from the `4eyes` text; throws on a malformed one. */
export function parseRequirements(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of text.split(',')) {
    const m = /^\s*([^:\s]+)\s*:\s*(\d{1,4})\s*$/.exec(entry);
    const n = m ? Number(m[2]) : 0;
    if (!m || n < 1 || out.has(m[1]!)) throw new ParameterError(FORM);
    out.set(m[1]!, n);
  }
  return out;
}

export function requirementsOf(token: TokenState): Map<string, number> {
  try {
    return parseRequirements(token.info['4eyes'] ?? '');
  } catch {
    return new Map();
  }
}

export function separatorOf(token: TokenState): string {
  return token.info.separator || ' ';
}

/** How many tokens each realm still lacks (only realms that lack some). */
export function missingEyes(required: Map<string, number>, eyes: Eyes): Map<string, number> {
  const out = new Map<string, number>();
  for (const [realm, n] of required) {
    const have = eyes[realm]?.length ?? 0;
    if (have < n) out.set(realm, n - have);
  }
  return out;
}

/**
 * Eyes without a prototype: realm names are keys, and a realm may be called `__proto__` or
 * `constructor`, which on a plain object would read or set what Object.prototype has.
 */
export function newEyes(from: Readonly<Eyes> = {}): Eyes {
  const out: Eyes = Object.create(null);
  for (const [realm, serials] of Object.entries(from)) out[realm] = [...serials];
  return out;
}

/** The challenge data: the tokens presented so far (JSON); anything unreadable is none. */
export function parseEyes(data: string | undefined): Eyes {
  const out = newEyes();
  for (const [realm, serials] of Object.entries(jsonObject(data || '{}'))) {
    if (Array.isArray(serials)) out[realm] = serials.filter((s): s is string => typeof s === 'string');
  }
  return out;
}

export class FourEyesType extends TokenType {
  readonly type = '4eyes';
  readonly prefix = 'PI4E';
  readonly description = '4Eyes Token: Use tokens of two or more users to authenticate';
  override readonly challengeAlways = true;
  /** A two-man rule is set up by administrators, not by one of the men. */
  override readonly userEnrollable = false;
  override readonly checksOtherTokens = true;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const text = req.params['4eyes'];
    if (!text) throw ParameterError.missing('4eyes');
    const required = parseRequirements(text);
    // privacyIDEA's rule and message; an empty separator means the default blank.
    const separator = req.params.separator || ' ';
    if ([...separator].length !== 1)
      throw new ParameterError('The separator must only be one single character');
    const info = {
      '4eyes': [...required].map(([realm, n]) => `${realm}:${n}`).join(','),
      separator,
      tokenkind: 'virtual',
    };
    return { info, detail: {} };
  }

  /** Asks for the tokens still missing; `previous` holds those presented in earlier rounds. */
  override challenge(token: TokenState, opts: ChallengeOptions): ChallengeSpec {
    const eyes = parseEyes(opts.previous);
    const missing = missingEyes(requirementsOf(token), eyes);
    return { message: fourEyesChallengeText(missing), data: JSON.stringify(eyes) };
  }

  /** The other tokens are checked by the token service, never by the type. */
  checkOtp(): OtpMatch | null {
    return null;
  }

  override checkResponse(): OtpMatch | null {
    return null;
  }

  /** privacyIDEA's tokeninfo is this type's: `4eyes` (realm:count list) and `separator`. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    try {
      parseRequirements(infoValue(stored, '4eyes'));
    } catch {
      return { reason: 'its tokeninfo 4eyes is not a list of realm:count' };
    }
    return noSecret(stored);
  }
}

export function fourEyesChallengeText(missing: Map<string, number>): string {
  return `Please authenticate with another token from either realm: ${[...missing.keys()].join(', ')}.`;
}
