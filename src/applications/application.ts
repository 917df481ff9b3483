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
}

/** What the request asks for: `user`, `service_id`, `challenge` … (absent ones undefined). */
export type ItemFilter = Readonly<Record<string, string | undefined>>;

/** Which attachments a request for authentication items looks at. */
export interface ItemLookup {
  /** Attachments whose option `<option>` equals the filter of the same name, the hostname not used. */
  byOption?: string;
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
}
