// One error hierarchy for every layer. Each class carries what a front end needs to show it: the
// numeric code (one of ERR below), the HTTP status of its answer and whether its message may be
// shown to the client (`expose`, as in node-oidc-provider). Services only throw; the HTTP layer
// answers with these three fields and never asks which class an error is.

/**
 * Every numeric code authsrv answers with, by name. The numbers are privacyIDEA's (reference 1.2)
 * because its clients branch on them: a code, once given, never changes its meaning. Throw with a
 * name from here, never a bare number.
 */
export const ERR = {
  /** An error without a more specific code (privacyIDEA's PrivacyIDEAError). */
  Generic: 10,
  /** /system/setDefault was given no known default key. */
  SetDefaultUsage: 77,
  /** A token operation failed (TokenAdminError). */
  TokenAdmin: 301,
  /** A configuration value or definition is invalid (ConfigAdminError). */
  ConfigAdmin: 302,
  /** A policy forbids the action (PolicyError). */
  Policy: 303,
  /** A user who authenticated is refused by the authorization policy `authorized=deny_access`. */
  ValidateDenied: 401,
  /** The object asked for does not exist (ResourceNotFoundError). */
  ResourceNotFound: 601,
  /** The encryption key (security module) is locked or unusable (HsmError). */
  Hsm: 707,
  /** The database failed (DatabaseError). */
  Database: 902,
  /** A user, realm or resolver named in the request does not exist (UserError). */
  User: 904,
  /** A parameter is missing or invalid, or a value too long to store (ParameterError). */
  Parameter: 905,
  /** A user store failed: unreachable, timed out, refused the service account (ResolverError). */
  Resolver: 907,
  /** The token is locked (revoked): the action is not possible. */
  TokenLocked: 1007,
  /** The token already has an owner. */
  TokenAssigned: 1103,
  /** More than one token matches the OTP value (getserial). */
  OtpAmbiguous: 1200,
  /** The token type is unknown or cannot be enrolled. */
  UnknownTokenType: 1610,
  /** A lost token was asked for a token without an owner. */
  LostTokenUnassigned: 2012,
  /** A RADIUS server definition's secret is too long. */
  RadiusSecretTooLong: 2234,
  /** Wrong user name or password, or an unknown realm (AuthError). */
  WrongCredentials: 4031,
  /** The login gave no user name. */
  MissingUsername: 4032,
  /** A protected endpoint was called without an Authorization header. */
  MissingAuthHeader: 4033,
  /**
   * Brute-force throttling refused the attempt unchecked (too many failures of the account from
   * this address, or of this address): authsrv's own code, privacyIDEA has none.
   */
  Throttled: 4290,
  /** The JWT could not be decoded, its signature is wrong, or its session has ended. */
  JwtInvalid: 4304,
  /** The JWT has expired. */
  JwtExpired: 4305,
  /** The caller's role is not admitted at this endpoint. */
  MissingRight: 4306,
  /** An unexpected error: answered with HTTP 500 and a generic text, the cause only logged. */
  Internal: -500,
} as const;

export type ErrorCode = (typeof ERR)[keyof typeof ERR];

/** The HTTP statuses of failures (the specification's Errors table). */
const HTTP = {
  /** A service-level failure: privacyIDEA's clients read it from result.status. */
  ServiceFailure: 200,
  BadRequest: 400,
  Unauthorized: 401,
  PayloadTooLarge: 413,
  TooManyRequests: 429,
  InternalServerError: 500,
} as const;

export class AuthsrvError extends Error {
  readonly code: ErrorCode;
  /** Extra data for `detail` (rarely used). */
  readonly details: Record<string, unknown> | undefined;
  /** The HTTP status of the answer (the specification's Errors table). */
  readonly httpStatus: number = HTTP.ServiceFailure;
  /** Whether the client is shown the message; a hidden one is answered with a generic text. */
  readonly expose: boolean = true;

  constructor(message: string, code: ErrorCode = ERR.Generic, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }

  /** The message as the wire shows it: `ERR<code>: <message>`. */
  wireMessage(): string {
    return this.onWire(this.message);
  }

  /**
   * The message as a caller who is not an administrator is shown it: a message that names a path
   * of the server's file system (a passwd file, a key file, the configuration) becomes
   * SERVER_DETAIL_TEXT with the same code; the log and the audit keep the full message.
   */
  outsiderWireMessage(): string {
    return this.onWire(namesServerPath(this.message) ? SERVER_DETAIL_TEXT : this.message);
  }

  /** How a message of this error is written on the wire. */
  protected onWire(message: string): string {
    return `ERR${this.code}: ${message}`;
  }
}

/** What a caller who is not an administrator is shown instead of a message naming a server path. */
export const SERVER_DETAIL_TEXT = 'The server could not complete the request (the details are in its log).';

/**
 * An absolute file-system path: `/dir/file`, `~/dir` or `C:\\dir`, starting the text or after a
 * blank, quote, bracket or `=`, so that a URL's path (`ldap://host/dc=x`) and `and/or` are not one.
 */
const SERVER_PATH = /(?:^|[\s'"`([=])(?:~?\/[^\s'"`,;:)>\]}]+|[A-Za-z]:\\[^\s'"`,;)>\]}]*)/;

/** Whether a message names a path of the file system (which only administrators may see). */
export function namesServerPath(message: string): boolean {
  return SERVER_PATH.test(message);
}

/** Authentication failures: HTTP 401, plain message without the ERR prefix. */
export class AuthError extends AuthsrvError {
  override readonly httpStatus = HTTP.Unauthorized;
  constructor(message: string, code: ErrorCode = ERR.WrongCredentials, details?: Record<string, unknown>) {
    super(message, code, details);
  }
  protected override onWire(message: string): string {
    return message;
  }
}

/**
 * An authentication attempt refused unchecked by the brute-force throttling: HTTP 429, with the
 * seconds to wait in `detail.retry_after` (and the Retry-After header).
 */
export class ThrottledError extends AuthsrvError {
  override readonly httpStatus = HTTP.TooManyRequests;
  readonly retryAfter: number;
  constructor(retryAfter: number) {
    super(
      `Authentication throttled: too many failed attempts. Try again in ${retryAfter} seconds.`,
      ERR.Throttled,
      { retry_after: retryAfter },
    );
    this.retryAfter = retryAfter;
  }
  /** Plain, as the other authentication failures are written. */
  protected override onWire(message: string): string {
    return message;
  }
}

export class ParameterError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.Parameter) {
    super(message, code);
  }
  static missing(name: string): ParameterError {
    return new ParameterError(`Missing parameter: '${name}'`);
  }
}

export class PolicyError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.Policy) {
    super(message, code);
  }
}

export class ResourceNotFoundError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.ResourceNotFound) {
    super(message, code);
  }
}

export class UserError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.User) {
    super(message, code);
  }
}

export class ConfigAdminError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.ConfigAdmin) {
    super(message, code);
  }
}

export class HsmError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.Hsm) {
    super(message, code);
  }
}

export class DatabaseError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.Database) {
    super(message, code);
  }
}

/**
 * The request body could not be read: malformed or over a limit of what a request may hold (HTTP
 * 400), or too large (HTTP 413). Answered with that status and the envelope of a ParameterError.
 */
export class RequestBodyError extends ParameterError {
  override readonly httpStatus: typeof HTTP.BadRequest | typeof HTTP.PayloadTooLarge;
  private constructor(message: string, httpStatus: RequestBodyError['httpStatus']) {
    super(message);
    this.httpStatus = httpStatus;
  }
  static malformed(message: string): RequestBodyError {
    return new RequestBodyError(message, HTTP.BadRequest);
  }
  /** Too many parameters, or a value nested too deeply (src/http/request-limits.ts). */
  static overLimit(message: string): RequestBodyError {
    return new RequestBodyError(message, HTTP.BadRequest);
  }
  static tooLarge(limit: number): RequestBodyError {
    return new RequestBodyError(`The request body is larger than ${limit} bytes`, HTTP.PayloadTooLarge);
  }
}

/** A user store failed (unreachable, timed out, refused the service account …). */
export class ResolverError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.Resolver) {
    super(message, code);
  }
}

/** A token operation failed (privacyIDEA's TokenAdminError; 301 unless a more specific code applies). */
export class TokenAdminError extends AuthsrvError {
  constructor(message: string, code: ErrorCode = ERR.TokenAdmin) {
    super(message, code);
  }
}

/**
 * An error authsrv did not expect (a bug, a library failure): HTTP 500 with a generic text. Its
 * message is never shown; the original error is its `cause`, for the log.
 */
export class InternalError extends AuthsrvError {
  override readonly httpStatus = HTTP.InternalServerError;
  override readonly expose = false;
  constructor(cause: unknown) {
    super('internal error', ERR.Internal);
    this.cause = cause;
  }
}

/**
 * A challenge's message (e-mail, SMS) that could not be sent, when the request asked for
 * `exception=1`: HTTP 500, as the specification's Errors table says, with privacyIDEA's message.
 */
export class MessageNotSentError extends AuthsrvError {
  override readonly httpStatus = HTTP.InternalServerError;
  constructor(message: string) {
    super(message, ERR.Internal);
  }
}

/** Any thrown value as an authsrv error: its own, or an InternalError around anything else. */
export function asAuthsrvError(e: unknown): AuthsrvError {
  return e instanceof AuthsrvError ? e : new InternalError(e);
}
