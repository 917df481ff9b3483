// Two-step enrollment of HOTP/TOTP (reference 3.3): the server generates its part of the seed and
// the token waits (`clientwait`) for the client's part; the seed is then
// PBKDF2-HMAC-SHA1(password = server part as lower-case hex, salt = client part, rounds, key length),
// so neither side alone knows it. The admin/user-scope action `<type>_2step` (allow|force) decides
// whether `2stepinit=1` is honoured (without it the parameter is ignored, as privacyIDEA drops it)
// and whether a one-step enrollment is refused; the enrollment-scope actions
// `<type>_2step_clientsize|serversize|difficulty` set the sizes.
import { pbkdf2Key } from '../crypto/index.ts';
import { ParameterError, PolicyError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import type { ActionDef } from '../policy/index.ts';
import { randomOf, type TypeRandom } from './random.ts';

export interface TwoStepSizes {
  /** Bytes of the server part. */
  serverSize: number;
  /** Bytes of the client part (the PBKDF2 salt). */
  clientSize: number;
  /** PBKDF2 rounds. */
  difficulty: number;
}

/** What an enrollment does about two-step: the first step, or the second with the stored server part. */
export type TwoStepRequest =
  | { step: 'init'; sizes: TwoStepSizes }
  | { step: 'finish'; sizes: TwoStepSizes; serverPart: Buffer; keyLength: number };

export const TWO_STEP_DEFAULTS: TwoStepSizes = { serverSize: 20, clientSize: 8, difficulty: 10000 };

/** The policy values the decision needs, looked up by the caller (admin/user scope, enrollment scope). */
export interface TwoStepLookup {
  /** `<type>_2step` of the caller's scope. */
  mode(action: string): Promise<string | undefined>;
  /** `<type>_2step_clientsize` etc. of the enrollment scope. */
  size(action: string): Promise<string | undefined>;
}

/** The token being re-enrolled, if any. */
export interface TwoStepPrior {
  type: string;
  rolloutState: string;
  info: Readonly<Record<string, string>>;
  key(): Buffer;
}

/**
 * The policy actions of two-step enrollment of a type: `<type>_2step` (allow|force) for the caller's
 * scope, the sizes for the enrollment scope.
 */
export function twoStepActions(type: string): {
  caller: Record<string, ActionDef>;
  enrollment: Record<string, ActionDef>;
} {
  const sizes: [string, string][] = [
    ['clientsize', 'Bytes of the client part of a two-step enrollment (default 8).'],
    ['serversize', 'Bytes of the server part of a two-step enrollment (default 20).'],
    ['difficulty', 'PBKDF2 rounds of a two-step enrollment (default 10000).'],
  ];
  return {
    caller: {
      [`${type}_2step`]: {
        type: 'str',
        description: `Two-step enrollment of ${type} tokens (the client adds part of the seed).`,
        group: type,
        values: ['allow', 'force'],
      },
    },
    enrollment: Object.fromEntries(
      sizes.map(([k, description]) => [
        `${type}_2step_${k}`,
        { type: 'int' as const, description, group: type },
      ]),
    ),
  };
}

export const FORCED_MESSAGE = (type: string) =>
  `The policy ${type}_2step=force requires a two-step enrollment (2stepinit=1).`;

function positive(v: string | undefined, fallback: number): number {
  const n = v === undefined ? Number.NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * Whether this enrollment of a token of a `twoStepEnrollment` type is a first step, a second step or neither.
 * A token of the type waiting in `clientwait` is completed by the request (its `otpkey` is the
 * client part), whatever the policy; `2stepinit` then is an error, as in privacyIDEA.
 * With `<type>_2step=force` a one-step enrollment is refused with a PolicyError (ERR303).
 */
export async function planTwoStep(
  type: string,
  params: Readonly<Record<string, string>>,
  prior: TwoStepPrior | undefined,
  lookup: TwoStepLookup,
): Promise<TwoStepRequest | undefined> {
  const init = isTrue(params['2stepinit']);
  if (prior && prior.type === type && prior.rolloutState === 'clientwait') {
    if (init) throw new ParameterError('2stepinit is only to be used in the first initialization step.');
    const info = prior.info;
    const sizes: TwoStepSizes = {
      serverSize: positive(info['2step_serversize'], TWO_STEP_DEFAULTS.serverSize),
      clientSize: positive(info['2step_clientsize'], TWO_STEP_DEFAULTS.clientSize),
      difficulty: positive(info['2step_difficulty'], TWO_STEP_DEFAULTS.difficulty),
    };
    const keyLength = positive(info['2step_output'], 20);
    return { step: 'finish', sizes, serverPart: prior.key(), keyLength };
  }
  const mode = (await lookup.mode(`${type}_2step`))?.toLowerCase();
  if (mode !== 'allow' && mode !== 'force') return undefined;
  if (!init) {
    if (mode === 'force') throw new PolicyError(FORCED_MESSAGE(type));
    return undefined;
  }
  const size = async (name: string, fallback: number) =>
    positive(await lookup.size(`${type}_2step_${name}`), fallback);
  return {
    step: 'init',
    sizes: {
      serverSize: await size('serversize', TWO_STEP_DEFAULTS.serverSize),
      clientSize: await size('clientsize', TWO_STEP_DEFAULTS.clientSize),
      difficulty: await size('difficulty', TWO_STEP_DEFAULTS.difficulty),
    },
  };
}

/** The seed to store: the server part (first step) or the derived key (second step). */
export async function twoStepKey(
  req: TwoStepRequest,
  otpkey: string | undefined,
  random?: TypeRandom,
): Promise<Buffer> {
  if (req.step === 'init') return randomOf(random).bytes(req.sizes.serverSize);
  if (!otpkey) throw ParameterError.missing('otpkey');
  if (!/^([0-9a-fA-F]{2})+$/.test(otpkey)) throw new ParameterError('The otpkey must be hexadecimal');
  const client = Buffer.from(otpkey, 'hex');
  if (client.length !== req.sizes.clientSize)
    throw new ParameterError(`The client component must be ${req.sizes.clientSize} bytes long.`);
  return deriveTwoStepKey(req.serverPart, client, req.sizes.difficulty, req.keyLength);
}

/** PBKDF2-HMAC-SHA1 with the server part's lower-case hex as the password (off the event loop). */
export function deriveTwoStepKey(
  server: Buffer,
  client: Buffer,
  rounds: number,
  length: number,
): Promise<Buffer> {
  return pbkdf2Key(Buffer.from(server.toString('hex'), 'ascii'), client, rounds, length, 'sha1');
}

/** The first step's tokeninfo, detail (and otpauth parameters) and rollout state. */
export function twoStepInit(sizes: TwoStepSizes, keyLength: number) {
  const detail = {
    '2step_salt': sizes.clientSize,
    '2step_output': keyLength,
    '2step_difficulty': sizes.difficulty,
  };
  return {
    info: {
      '2step_serversize': String(sizes.serverSize),
      '2step_clientsize': String(sizes.clientSize),
      '2step_difficulty': String(sizes.difficulty),
      '2step_output': String(keyLength),
    },
    detail,
    uri: Object.entries(detail).map(([k, v]) => [k, String(v)] as [string, string]),
    rolloutState: 'clientwait',
  };
}
