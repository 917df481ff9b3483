// A machine application (reference 6.4, privacyidea/lib/applications): what a token attached to a
// machine is used for there. Each application says which token types it serves, whether it needs
// a machine, its options, and builds the authentication items of one attached token. Core never
// asks for an application by name beyond the registry: everything it needs is here.

/** An option of an application: its type and what it means (GET /application/ shape). */
export interface ApplicationOption {
  type: 'str' | 'int' | 'bool';
  description: string;
  value?: readonly string[];
}

/** One attached token as an application sees it when it builds authentication items. */
export interface AttachedToken {
  serial: string;
  /** The token type (lower case). */
  type: string;
  active: boolean;
  /** Tokeninfo values (sealed ones opened). */
  info: Readonly<Record<string, string>>;
  /** The owner's login name, when the token has an owner that still exists. */
  username: string | undefined;
  /** The options of the attachment (ssh: user, service_id). */
  options: Readonly<Record<string, string>>;
  /** The untruncated HMAC of a challenge with the token's key; undefined for a type without one. */
  hmacResponse(challenge: Buffer): Buffer | undefined;
}

/** What the request asks for: `user`, `service_id`, `challenge` … (absent ones undefined). */
export type ItemFilter = Readonly<Record<string, string | undefined>>;

/** Which attachments a request for authentication items looks at. */
export interface ItemLookup {
  /** Attachments whose option `<option>` equals the filter of the same name, the hostname not used. */
  byOption?: string;
}

/**
 * A token that has just authenticated with a password, or asks for a refill, as an application
 * that issues authentication items then sees it (offline: hashed OTP values).
 */
export interface IssuingToken extends AttachedToken {
  /** The counter of the token's next OTP value. */
  counter: number;
  /** The values of the counters `from` … `from+n−1`; undefined for a type without them. */
  counterValues(from: number, n: number): string[] | undefined;
  /** The PIN and the OTP parts of the password just used. */
  pin: string;
  otp: string;
  /** Whether the PIN comes before the OTP (PrependPin). */
  prependPin: boolean;
}

/** What an application issued: the item, the token's counter after it, tokeninfo to store sealed. */
export interface Issue {
  item: Record<string, unknown>;
  counter: number;
  secretInfo: Record<string, string>;
}

export interface MachineApplication {
  /** The API name: ssh, offline, luks. */
  readonly name: string;
  /** The token types it serves (lower case); attaching another type is refused. */
  readonly tokenTypes: readonly string[];
  /** Whether a token may be attached to no machine (any machine). */
  readonly machineOptional: boolean;
  /** Its options, by token type (GET /application/ shape). */
  readonly options: Readonly<Record<string, Readonly<Record<string, ApplicationOption>>>>;
  /**
   * How a request finds its attachments: by an option the filter names (ssh: service_id), else
   * by the hostname.
   */
  lookup(filter: ItemFilter): ItemLookup;
  /** The authentication item of one attached token, or undefined when it gives none for the filter. */
  authItem(token: AttachedToken, filter: ItemFilter): Record<string, unknown> | undefined;
  /** The options an attachment works with, absent ones at their defaults; absent: as stored. */
  effectiveOptions?(options: Readonly<Record<string, string>>): Record<string, string | number>;
  /** Refuses a bad value of one of its options (attaching, setting options); absent: any value. */
  checkOption?(name: string, value: string): void;
  /**
   * What a successful authentication of an attached token issues to the client that asked
   * (offline: the next OTP values, hashed); absent or undefined: nothing.
   */
  issue?(token: IssuingToken): Promise<Issue | undefined>;
  /**
   * A refill of what `issue` gave (POST /validate/offlinerefill): new items for those used up since,
   * for the refill token given. Absent: the application issues nothing to refill.
   */
  refill?(token: IssuingToken, refillToken: string): Promise<Issue>;
}
