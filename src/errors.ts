// One error hierarchy for every service. The numeric codes are privacyIDEA's (reference 1.2) because
// clients branch on them. Front ends decide how an error is shown; services only throw.

export class AuthsrvError extends Error {
  readonly code: number;
  /** Extra data for `detail` (rarely used). */
  readonly details: Record<string, unknown> | undefined;

  constructor(message: string, code = 10, details?: Record<string, unknown>) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }

  /** The message as the wire shows it: `ERR<code>: <message>`. */
  wireMessage(): string {
    return `ERR${this.code}: ${this.message}`;
  }
}

/** Authentication failures: HTTP 401, plain message without the ERR prefix. */
export class AuthError extends AuthsrvError {
  constructor(message: string, code: number = AuthCode.WrongCredentials, details?: Record<string, unknown>) {
    super(message, code, details);
  }
  override wireMessage(): string {
    return this.message;
  }
}

export const AuthCode = {
  Generic: 403,
  WrongCredentials: 4031,
  MissingUsername: 4032,
  MissingAuthHeader: 4033,
  DecodingError: 4304,
  TokenExpired: 4305,
  MissingRight: 4306,
} as const;

export class ParameterError extends AuthsrvError {
  constructor(message: string, code = 905) {
    super(message, code);
  }
  static missing(name: string): ParameterError {
    return new ParameterError(`Missing parameter: '${name}'`);
  }
}

export class PolicyError extends AuthsrvError {
  constructor(message: string, code = 303) {
    super(message, code);
  }
}

export class ResourceNotFoundError extends AuthsrvError {
  constructor(message: string, code = 601) {
    super(message, code);
  }
}

export class UserError extends AuthsrvError {
  constructor(message: string, code = 904) {
    super(message, code);
  }
}

export class ConfigAdminError extends AuthsrvError {
  constructor(message: string, code = 302) {
    super(message, code);
  }
}

export class HsmError extends AuthsrvError {
  constructor(message: string, code = 707) {
    super(message, code);
  }
}

export class DatabaseError extends AuthsrvError {
  constructor(message: string, code = 902) {
    super(message, code);
  }
}

/** The request body could not be read (malformed or too large): answered with an HTTP 4xx envelope. */
export class RequestBodyError extends ParameterError {
  readonly httpStatus: number;
  constructor(message: string, httpStatus: number) {
    super(message);
    this.httpStatus = httpStatus;
  }
}

/** A user store failed (unreachable, timed out, refused the service account …). */
export class ResolverError extends AuthsrvError {
  constructor(message: string, code = 907) {
    super(message, code);
  }
}

/** A token operation failed (privacyIDEA's TokenAdminError; 301 unless a more specific code applies). */
export class TokenAdminError extends AuthsrvError {
  constructor(message: string, code = 301) {
    super(message, code);
  }
}
