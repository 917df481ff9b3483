// The interface every token type implements (reference 3.1, 4.5), and the base class holding what
// most types share. A type knows how to enroll (turn request parameters into a secret, tokeninfo
// and the enrollment detail) and how to check the OTP part of a password; the token service does
// the storing, the PIN, the counters and the policies. What only some types can do (resync, the
// search of /token/getserial, verified or two-step enrollment, import from token files, policy
// actions of their own) is declared here with a default, so that the token service asks the type
// and never its name.

import { TokenAdminError } from '../errors.ts';
import type { ScopedActions } from '../policy/index.ts';
import type { PrivacyideaConversion, PrivacyideaStoredToken } from './privacyidea.ts';
import type { TypeRandom } from './random.ts';
import type { TwoStepRequest } from './two-step.ts';

export type ClientMode = 'interactive' | 'poll' | 'webauthn' | 'u2f';

/** A stored token as a type sees it. */
export interface TokenState {
  readonly serial: string;
  readonly type: string;
  readonly otplen: number;
  /** HOTP: next counter to check; TOTP: the last accepted time step (0 = none). */
  readonly count: number;
  readonly countWindow: number;
  readonly syncWindow: number;
  readonly info: Readonly<Record<string, string>>;
  /** The secret: seed bytes, or the UTF-8 of a static password. Empty when the type has none. */
  key(): Buffer;
}

/** A successful OTP check: what the token stores afterwards. */
export interface OtpMatch {
  /** The counter (HOTP) or time step (TOTP) that matched. */
  counter: number;
  /** The new value of `count`. */
  newCount: number;
  /** Tokeninfo to write (e.g. TOTP's learned timeShift). */
  info?: Record<string, string>;
  /**
   * The secret to store instead of the current one (tan: the TANs left). The store writes it in
   * the same compare-and-set as `newCount`, so a value consumed by one request is gone for all.
   */
  newKey?: Buffer;
}

/** A mail to the token's owner (e-mail token, later notifications). */
export interface OutboundMail {
  to: string;
  subject: string;
  body: string;
  /** The body's MIME type: text/plain or text/html. */
  mimetype: 'plain' | 'html';
}

/**
 * What core lends a type that delivers its challenge out of band: the channels, each naming the
 * definition to send through. A channel rejects with the reason when the message is not sent.
 */
export interface Outbox {
  /** Sends a mail through the SMTP server definition `identifier` (/smtpserver/). */
  mail(identifier: string, mail: OutboundMail): Promise<void>;
  /** Sends a text message to `phone` through the SMS gateway definition `gateway` (/smsgateway/). */
  sms(gateway: string, phone: string, message: string): Promise<void>;
}

/**
 * A challenge whose value could not be delivered (no address, no server, the server refused).
 * `message` is what the client is told (privacyIDEA's "The PIN was correct, but …"); `reason`
 * goes to the log only.
 */
export class ChallengeDeliveryError extends Error {
  readonly reason: string;
  constructor(message: string, reason: string) {
    super(message);
    this.name = 'ChallengeDeliveryError';
    this.reason = reason;
  }
}

/** What a challenge request passes to a type (reference 4.3). */
export interface ChallengeOptions {
  /** The value of an authentication-scope policy action for the request (`indexedsecret_count`). */
  policy(action: string): string | undefined;
  /** The data of the challenge this one continues, in a transaction of several rounds (4eyes). */
  previous?: string | undefined;
  /** Where random positions or questions are drawn from; node:crypto's when absent. */
  random?: TypeRandom | undefined;
  /** The system configuration (a delivering type reads its server and validity settings). */
  settings?: TypeSettings | undefined;
  /**
   * The token owner's attributes (username, realm, givenname, surname, email, mobile …, the
   * resolver's), read on demand: for the tags of a message and a dynamic address. Undefined when
   * the token has no owner or the owner is not found.
   */
  owner?: (() => Promise<Readonly<Record<string, string>> | undefined>) | undefined;
  /** The channels a delivering type sends through (deliverChallenge). */
  outbox?: Outbox | undefined;
}

/** The type-specific part of a challenge. */
export interface ChallengeSpec {
  /** The message; undefined keeps `challenge_text` or the type's `challengeMessage`. */
  message?: string;
  /** Stored in the challenge row's `data` and given back to `checkResponse`. */
  data?: string;
  /** Extra keys of the multi_challenge entry (e.g. `attributes`). */
  extra?: Record<string, unknown>;
  /**
   * The counter the token moves to when the challenge is delivered: an e-mail or SMS token spends
   * a value per challenge (reference 4.3), so that a newer challenge voids the older ones.
   */
  newCount?: number;
  /** Seconds the challenge stays valid, when the type's own setting says (email.validtime). */
  validity?: number | undefined;
}

/** System-wide settings a type may read (system config with privacyIDEA's defaults applied). */
export interface TypeSettings {
  /** Config value by key, undefined when unset. */
  get(key: string): string | undefined;
}

/** A certificate to issue: for a PEM CSR, or for a key the CA generates (PKCS#12 with `password`). */
export interface CertificateRequest {
  /** The CA connector's name. */
  ca: string;
  template?: string | undefined;
  csr?: string | undefined;
  generate?: { subject: string; password: string } | undefined;
}

export interface IssuedCertificate {
  /** PEM. */
  certificate: string;
  /** Upper-case hex serial number. */
  serial: string;
  /** DER of the PKCS#12 bundle of a generated key; the key itself is kept nowhere. */
  pkcs12?: Buffer;
}

/** What core lends a type that holds certificates: the CA connectors (/caconnector/) by name. */
export interface CertificateAuthorities {
  issue(req: CertificateRequest): Promise<IssuedCertificate>;
  /** Records the certificate as revoked by the connector and writes its CRL again. */
  revoke(ca: string, serial: string): Promise<void>;
}

export interface EnrollRequest {
  serial: string;
  /** The request parameters (strings). */
  params: Readonly<Record<string, string>>;
  settings: TypeSettings;
  /** The owner's login and realm, for labels. */
  user?: { login: string; realm: string } | undefined;
  now: Date;
  /** hotp/totp: the step of a two-step enrollment (src/tokens/two-step.ts), if it is one. */
  twoStep?: TwoStepRequest | undefined;
  /**
   * The value of an enrollment-scope policy action for the token's owner (or realm), for the
   * actions the type lists in `enrollmentActions` (`pw.length`, `papertoken_count`, …); undefined
   * when no policy sets it. The token service fills it; absent, no policy applies.
   */
  policy?: ((action: string) => string | undefined) | undefined;
  /** Where generated secrets, passwords and TANs are drawn from; node:crypto's when absent. */
  random?: TypeRandom | undefined;
  /** The CA connectors, for a type that holds a certificate. */
  ca?: CertificateAuthorities | undefined;
}

/** What enrollment produces. */
export interface Enrollment {
  /** The secret to store (sealed); undefined keeps none. */
  key?: Buffer;
  otplen?: number;
  info: Record<string, string>;
  /** Type-specific detail of the /token/init answer (otpkey, googleurl, password, …). */
  detail: Record<string, unknown>;
  rolloutState?: string;
  /** The description to store when the request gives none (sshkey: the key's comment). */
  description?: string;
}

/** What an AutoResync attempt found, and what the token must remember or forget (reference 4.5). */
export interface AutoResyncStep {
  match: OtpMatch | null;
  remember?: Record<string, string>;
  forget?: boolean;
}

/** What a token-file entry (POST /token/load) tells a type besides the secret and the OTP length. */
export interface TokenFileEntry {
  hashlib?: string | undefined;
  timeStep?: number | undefined;
  timeShift?: number | undefined;
  counter?: number | undefined;
}

/** What an imported token starts with besides its secret and OTP length. */
export interface ImportedToken {
  info: Record<string, string>;
  count: number;
}

/** What an authentication request tells a type deciding whether the token takes part. */
export interface AuthRequestInfo {
  /** The request's `service_id` parameter. */
  serviceId?: string | undefined;
}

/** What an authentication server outside authsrv answered a forwarded password (radius). */
export type UpstreamAnswer =
  | { kind: 'accept' }
  | { kind: 'reject' }
  /** The server asks more: its state goes with the answer (`state`), its message to the user. */
  | { kind: 'challenge'; state: Buffer; message?: string | undefined }
  /** No usable answer (unreachable, timed out, wrong secret, unknown definition): a refusal. */
  | { kind: 'failed'; reason: string };

/** One request to an upstream server: the named definition, the user name and the password. */
export interface UpstreamRequest {
  server: string;
  user: string;
  password: string;
  /** The state of the upstream challenge this request answers. */
  state?: Buffer | undefined;
}

/**
 * What core hands a forwarding type for one check: the password to forward (the pass, or its OTP
 * part when the PIN was checked here), the token owner's login, the data of the challenge the
 * pass answers, and `ask`, which sends a request to a server definition of the type's `upstream`.
 */
export interface UpstreamCheck {
  password: string;
  owner?: string | undefined;
  challengeData?: string | undefined;
  ask(r: UpstreamRequest): Promise<UpstreamAnswer>;
}

/** A forwarding type's verdict: accepted, refused, or a challenge of the upstream server to pass on. */
export type UpstreamResult =
  | { kind: 'accept' }
  | { kind: 'reject'; reason?: string }
  | { kind: 'challenge'; challenge: ChallengeSpec };

export abstract class TokenType {
  /** Lower-case type name (`hotp`). */
  abstract readonly type: string;
  /** Serial prefix (`OATH`). */
  abstract readonly prefix: string;
  /** Shown in GET /auth/rights and the policy definitions. */
  abstract readonly description: string;
  readonly clientMode: ClientMode = 'interactive';
  /** Whether a PIN-only request can start a challenge for this type at all. */
  readonly challengeCapable: boolean = true;
  /** Whether a PIN-only request starts a challenge without the `challenge_response` policy. */
  readonly challengeAlways: boolean = false;
  /** Whether the password has an OTP part after the PIN (spass: no). */
  readonly hasOtp: boolean = true;
  /** Whether the PIN always comes first, whatever PrependPin says (a Yubikey types its OTP last). */
  readonly pinAlwaysFirst: boolean = false;
  /** Whether users may enroll it for themselves (a user-scope `enroll<TYPE>` action). */
  readonly userEnrollable: boolean = true;
  /** The default challenge message. */
  readonly challengeMessage: string = 'please enter otp: ';
  /** Whether the token removes itself after its first successful use (registration). */
  readonly singleUse: boolean = false;
  /**
   * Whether the password after the PIN is made of other tokens' passwords that the token service
   * checks (4eyes, src/core/four-eyes.ts); such a type's checkOtp/checkResponse never match.
   */
  readonly checksOtherTokens: boolean = false;
  /** The enrollment-scope policy actions the type reads through `EnrollRequest.policy`. */
  readonly enrollmentActions: readonly string[] = [];
  /**
   * The policy actions the type contributes, per scope (src/policy/definitions.ts adds the enroll
   * right and the actions of every type).
   */
  readonly policyActions: ScopedActions = {};
  /**
   * Enrollment parameters whose default is an admin- or user-scope action of the caller (parameter
   * → action, e.g. hashlib ← `hotp_hashlib`), applied when the request does not give them.
   */
  readonly parameterDefaults: Readonly<Record<string, string>> = {};
  /**
   * Enrollment parameters a restricted caller may give only with a value an admin- or user-scope
   * action of theirs lists (parameter → action, the values separated by blanks; sms.identifier ←
   * `sms_gateways`). Callers without an active policy of their scope may give any value.
   */
  readonly parameterChoices: Readonly<Record<string, string>> = {};
  /** Whether an enrollment can wait for an OTP value of the new token (`verify_enrollment`). */
  readonly verifiableEnrollment: boolean = false;
  /** Whether it can be enrolled in two steps, the client adding part of the seed (two-step.ts). */
  readonly twoStepEnrollment: boolean = false;
  /** Whether /token/getserial looks for an OTP value among tokens of the type (`searchOtp`). */
  readonly otpSearchable: boolean = false;
  /** Whether token files can hold tokens of the type (`importedToken`). */
  readonly importable: boolean = false;
  /**
   * The kind of server definitions a forwarding type sends its values to (radius: `radius`, the
   * /radiusserver/ definitions); such a type has `checkUpstream`, and its checkOtp never matches.
   */
  readonly upstream?: string;

  /**
   * Where the type's tokens come in the order a user's tokens are tried (smaller first):
   * privacyIDEA's weigh_token_type, the code of the name's first letter. A type whose challenge
   * must come last overrides it (privacyIDEA's push: 1000).
   */
  get tryOrder(): number {
    return this.type.charCodeAt(0);
  }

  /**
   * AutoResync (reference 4.5), for a value that missed the window, with the AutoResyncTimeout in
   * seconds; only a type that can resynchronise itself (HOTP) has it.
   */
  autoResync?(token: TokenState, otp: string, now: Date, timeoutSeconds: number): AutoResyncStep;

  abstract enroll(req: EnrollRequest): Promise<Enrollment>;

  /** Checks the OTP part of a password; null when it does not match. */
  abstract checkOtp(token: TokenState, otp: string, now: Date): OtpMatch | null;

  /** Builds the type-specific part of a challenge for a PIN-only request; default: none. */
  challenge(_token: TokenState, _opts: ChallengeOptions): ChallengeSpec {
    return {};
  }

  /**
   * The out-of-band step of a challenge, awaited after `challenge` and before the challenge is
   * stored: an e-mail or SMS token sends the value here through `opts.outbox`. Throws a
   * ChallengeDeliveryError when it cannot be delivered (the challenge is then not stored).
   * Default: nothing to deliver.
   */
  async deliverChallenge(_token: TokenState, _spec: ChallengeSpec, _opts: ChallengeOptions): Promise<void> {}

  /**
   * Checks the answer to a challenge whose row carries `data` (from `challenge`); default: the
   * answer is an OTP.
   */
  checkResponse(token: TokenState, response: string, _data: string, now: Date): OtpMatch | null {
    return this.checkOtp(token, response, now);
  }

  /**
   * A forwarding type's check (see `upstream`): the password goes to the server the token names,
   * whose answer becomes the token's. Only a type with `upstream` has it.
   */
  checkUpstream?(token: TokenState, check: UpstreamCheck): Promise<UpstreamResult>;

  /**
   * Whether the token's PIN is checked here, before the rest of the pass is forwarded or checked;
   * a forwarding type may leave the PIN to the upstream server, which then gets the whole pass.
   */
  pinCheckedLocally(_token: TokenState): boolean {
    return true;
  }

  /** Whether the token takes part in an authentication request at all (applspec: its service). */
  useForAuthentication(_token: TokenState, _request: AuthRequestInfo): boolean {
    return true;
  }

  /**
   * The values of the counters `from` … `from+n−1` (the offline application hands them out
   * hashed); undefined for a type without counter-based values. Default: none.
   */
  counterValues(_token: TokenState, _from: number, _n: number): string[] | undefined {
    return undefined;
  }

  /**
   * The untruncated HMAC of a challenge with the token's key (the luks application: a YubiKey's
   * challenge-response slot answers the same); undefined for a type without an HMAC key. Default:
   * none.
   */
  hmacResponse(_token: TokenState, _challenge: Buffer): Buffer | undefined {
    return undefined;
  }

  /** The OTP the token gave last, for privacyIDEA's "previous otp used again" message. */
  previousOtp(_token: TokenState, _now: Date): string | undefined {
    return undefined;
  }

  /**
   * Whether `otp` is a value the token already spent (a replay): such a failure does not count
   * toward the token's fail limit, so that a stranger replaying a sniffed value cannot lock it.
   * Default: the previous OTP.
   */
  usedOtp(token: TokenState, otp: string, now: Date): boolean {
    const previous = this.previousOtp(token, now);
    return previous !== undefined && otp !== '' && previous === otp;
  }

  /**
   * /token/resync (reference 4.5): two consecutive values re-align the token; null when they do
   * not. Default: the type can not be resynchronized.
   */
  resync(token: TokenState, _otp1: string, _otp2: string, _now: Date): OtpMatch | null {
    throw new TokenAdminError(`Token type ${token.type} can not be resynchronized`);
  }

  /**
   * /token/getserial (reference 3.5): the match of `otp` within `window` (counters or time steps)
   * of the token, for types that are `otpSearchable`; default: none.
   */
  searchOtp(_token: TokenState, _otp: string, _window: number, _now: Date): OtpMatch | null {
    return null;
  }

  /**
   * The state of a token imported from a file entry, for types that are `importable`; a string
   * says why the entry can not be imported. Default: no tokeninfo, count 0.
   */
  importedToken(_entry: TokenFileEntry, _settings: TypeSettings): ImportedToken | string {
    return { info: {}, count: 0 };
  }

  /**
   * A privacyIDEA token of the type, imported (`authsrv import privacyidea`): its secret and
   * tokeninfo as this type stores them, or why it cannot be carried over. A type without it is
   * not imported. The helpers the types share are in privacyidea.ts.
   */
  fromPrivacyidea?(stored: PrivacyideaStoredToken): PrivacyideaConversion;

  /**
   * POST /system/test/<type> (reference 8.1): tries the type's system configuration with the
   * request's parameters (e-mail: sends a test mail). Default: privacyIDEA's "Not implemented".
   */
  async testConfig(
    _params: Readonly<Record<string, string>>,
    _env: { settings: TypeSettings; outbox: Outbox },
  ): Promise<{ value: boolean; description: string }> {
    return { value: false, description: 'Not implemented' };
  }

  /**
   * What revoking the token means beyond the token itself (POST /token/revoke), after the token is
   * revoked: a certificate token has its certificate revoked by its CA. Default: nothing.
   */
  async revoked(_token: TokenState, _ca: CertificateAuthorities): Promise<void> {}

  /** The `enroll<TYPE>` action name. */
  get enrollAction(): string {
    return `enroll${this.type.toUpperCase()}`;
  }
}
