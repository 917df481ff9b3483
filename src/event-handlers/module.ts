// What every event handler module is: the positions it may run at, its actions with their options
// (what GET /event/actions/<module> shows and what POST /event checks), and the run of one action.
// A module gets everything from the run core hands it (options, tags, logging, token operations);
// it never reads the store.
import { AuthsrvError } from '../errors.ts';

export type EventPosition = 'pre' | 'post';

/** One option of an action, in privacyIDEA's shape. */
export interface OptionSpec {
  type: 'str' | 'text' | 'bool' | 'int';
  required?: boolean;
  description: string;
  /** The values the option may take, when it is a choice. */
  value?: readonly string[];
}

export type ActionSpecs = Readonly<Record<string, Readonly<Record<string, OptionSpec>>>>;

/** The values of the notification tags ({serial}, {user}, {realm} …) for the request at hand. */
export type EventTags = Readonly<Record<string, string>>;

/** The token attributes the Token module sets through core. */
export type TokenAttribute =
  | 'description'
  | 'validity_period_start'
  | 'validity_period_end'
  | 'max_failcount'
  | 'count_window';

/** What core lets a module do to the request's token (as the server itself, no admin policy). */
export interface TokenOperations {
  setActive(active: boolean): Promise<void>;
  remove(): Promise<void>;
  unassign(): Promise<void>;
  setAttributes(values: Partial<Record<TokenAttribute, string>>): Promise<void>;
  setInfo(key: string, value: string): Promise<void>;
  deleteInfo(key: string): Promise<void>;
  /** Puts the token into a realm, or (onlyRealm) into that realm alone. */
  setRealm(realm: string, onlyRealm: boolean): Promise<void>;
  /** Sets a random PIN of `length` characters (stored hashed, as every PIN); returns it. */
  setRandomPin(length: number): Promise<string>;
  /** Sets the fail counter. */
  setFailcount(value: number): Promise<void>;
  /** Adds `delta` (negative: subtracts) to the fail counter, never below 0. */
  changeFailcount(delta: number): Promise<void>;
  /** Adds `increment` to the integer in a tokeninfo entry (missing or not a number: 0). */
  increaseInfo(key: string, increment: number): Promise<void>;
  addToGroup(group: string): Promise<void>;
  removeFromGroup(group: string): Promise<void>;
  /** Attaches the token to a machine (or to none) for an application, with its options. */
  attach(attachment: EventAttachment): Promise<void>;
}

/** What `attach application` asks for. */
export interface EventAttachment {
  application: string;
  /** A machine id of the machine resolver `resolver`; neither: any machine. */
  machineId?: string | undefined;
  resolver?: string | undefined;
  options: Readonly<Record<string, string>>;
}

/** What an `enroll` action asks core to enroll, as the server itself. */
export interface EventEnrollment {
  /** The parameters of a token init (type, genkey, realm …). */
  params: Readonly<Record<string, string>>;
  /** For the request's user: the owner of its token, else the user it names. */
  forUser: boolean;
  /** Parameters filled from that user's entry in its user store: parameter → attribute. */
  fromUser?: Readonly<Record<string, string>> | undefined;
}

/** The named event counters (one row each), changed atomically. */
export interface EventCounters {
  /** Adds delta (negative: subtracts, never below 0 unless allowNegative); the new value. */
  change(name: string, delta: number, allowNegative: boolean): Promise<number>;
  reset(name: string): Promise<void>;
}

/** A mail to send through an SMTP server definition. */
export interface EventMail {
  to: string;
  subject: string;
  body: string;
  mimetype: 'plain' | 'html';
}

/** The mail core sends for a module, and the addresses it knows of the request's users. */
export interface EventMailer {
  send(smtpIdentifier: string, mail: EventMail): Promise<void>;
  /** The e-mail address of the token's owner, or of the logged-in user. */
  addressOf(who: 'tokenowner' | 'logged_in_user'): Promise<string | undefined>;
}

/** The server's settings some modules need (configuration file keys of `[event]`). */
export interface EventSettings {
  /** event.scripts_dir: the executables the Script module runs. */
  scriptsDir: string;
  /** event.notification_dir: where UserNotification's savefile writes. */
  notificationDir: string;
}

/** The request's parameters; pre, a change is what the endpoint sees. */
export interface RequestParameters {
  get(name: string): string | undefined;
  set(name: string, value: string): void;
  delete(name: string): void;
}

/** A value the ResponseMangler sets in the answer. */
export type ResponseValue = string | number | boolean;

/**
 * The JSON answer the client gets (post, successful JSON answers only): members named by their
 * path of keys from the top (`['detail', 'message']`); the changes apply to the envelope as sent.
 */
export interface ResponseBody {
  delete(path: readonly string[]): void;
  set(path: readonly string[], value: ResponseValue): void;
}

/** The users of a request a module may act on. */
export type EventUser = 'tokenowner' | 'logged_in_user';

/** Custom user attributes, written as the server itself (no admin policy applies). */
export interface EventUserAttributes {
  set(who: EventUser, key: string, value: string): Promise<void>;
  delete(who: EventUser, key: string): Promise<void>;
}

/** SMS through a stored SMS gateway, and the mobile numbers core knows of the request's users. */
export interface EventSms {
  /** Sends; a message not sent throws. */
  send(gateway: string, phone: string, message: string): Promise<void>;
  /** The mobile number (user store attribute `mobile`) of the token owner or the logged-in user. */
  phoneOf(who: EventUser): Promise<string | undefined>;
}

/** The caller of the request. */
export interface EventCaller {
  username: string;
  realm: string;
  role: string;
}

/**
 * Thrown by a module whose failure must fail the request (Script with raise_error): core writes the
 * handler's audit row and lets the error answer the request; every other failure is only logged.
 */
export class HandlerAbortError extends AuthsrvError {}

/** What core lends a module for one run. */
export interface EventRun {
  /** The event fired (token_init …). */
  event: string;
  position: EventPosition;
  /** The definition's options, as stored. */
  options: Readonly<Record<string, string>>;
  tags: EventTags;
  /** Writes one line to the named logger of the server's log. */
  log(logger: string, level: string, message: string): void;
  /** The request's token; undefined when the request names none. */
  token: TokenOperations | undefined;
  counters: EventCounters;
  mailer: EventMailer;
  /** The moment of the run (`{now}` tags). */
  now: Date;
  /** Enrolls a new token; its serial. */
  enroll(enrollment: EventEnrollment): Promise<string>;
  /**
   * Tags this run adds for the definitions that run after it in the same request (`{pin}` of
   * `set random pin`).
   */
  addTags(tags: EventTags): void;
  settings?: EventSettings;
  /** The request's parameters (RequestMangler). */
  parameters?: RequestParameters;
  /** The answer, post and only for a successful JSON answer (ResponseMangler). */
  response?: ResponseBody | undefined;
  userAttributes?: EventUserAttributes;
  sms?: EventSms;
  /** The authenticated caller; undefined for an unauthenticated request (/validate/check …). */
  caller?: EventCaller | undefined;
}

export interface EventHandlerModule {
  readonly name: string;
  readonly positions: readonly EventPosition[];
  readonly actions: ActionSpecs;
  /** The actions when they depend on the server's settings (Script: the files of its directory). */
  actionsWith?(settings: EventSettings): ActionSpecs;
  /** Runs one action; true when it did its work. A failure throws. */
  run(action: string, run: EventRun): Promise<boolean>;
  /**
   * Checks an action's options beyond presence (numbers, JSON …) when a definition is saved;
   * throws an Error whose message says what is wrong.
   */
  checkOptions?(action: string, options: Readonly<Record<string, string>>): void;
}

/** `{tag}` replaced by the tag's value, unknown tags left as written. */
export function replaceTags(text: string, tags: EventTags): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => tags[name] ?? whole);
}

/** An option that is true the way privacyIDEA's checkboxes write it. */
export function optionIsTrue(value: string | undefined): boolean {
  return value !== undefined && ['1', 'true', 'on', 'yes'].includes(value.toLowerCase());
}
