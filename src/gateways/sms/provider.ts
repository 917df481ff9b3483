// The SMS provider plug-in family: one interface, one registry (registry.ts), one file per
// provider. A provider describes its parameters (GET /smsgateway/providers shows them as
// privacyIDEA does), checks a gateway's options and headers before they are stored, and sends one
// message. Core never branches on a provider's name.
import type { Logger } from 'pino';
import type { MailMessage } from '../smtp/index.ts';

/** One parameter of a provider, as GET /smsgateway/providers lists it. */
export interface ProviderParameter {
  description: string;
  required?: boolean;
  /** The only values allowed. */
  values?: readonly string[];
  /**
   * For a secret parameter: the parameters that decide where it goes. A stored secret is reused
   * (sent back as __CENSORED__) only while they are unchanged (src/core/secret-reuse.ts).
   */
  destination?: readonly string[];
}

/** A gateway's options and headers, secrets in clear (the service decrypts them). */
export interface GatewaySettings {
  options: Readonly<Record<string, string>>;
  headers: Readonly<Record<string, string>>;
}

/** What a provider works with besides its gateway's settings. */
export interface SendEnvironment {
  log: Logger;
  /** The directory whose executables the script provider runs (sms.scripts_dir). */
  scriptsDir: string;
  /**
   * Sends a mail through the SMTP server definition `identifier` (the SMTP provider's channel;
   * core passes it in, the gateways know no definitions); rejects with the reason.
   */
  mail?: ((identifier: string, mail: MailMessage) => Promise<void>) | undefined;
}

/** Why a message was not sent, in words for the administrator (no secret in it). */
export class SmsSendError extends Error {
  override name = 'SmsSendError';
}

export interface SmsProvider {
  /** The provider's module as privacyIDEA spells it (the API's `module`, stored as `providermodule`). */
  module: string;
  /** A short name the CLI also accepts (`http`, `script`, `smpp`). */
  shortName: string;
  /** Whether options beyond `parameters` are allowed (HTTP: extra request parameters). */
  optionsAllowed: boolean;
  headersAllowed: boolean;
  parameters: Readonly<Record<string, ProviderParameter>>;
  /** Checks values beyond presence and allowed values; throws ParameterError. */
  check(settings: GatewaySettings, env: SendEnvironment): void;
  /**
   * Sends `message` to `phone`; resolves when the gateway accepted it, rejects with SmsSendError
   * saying why not. Never waits longer than the gateway's timeout.
   */
  send(settings: GatewaySettings, phone: string, message: string, env: SendEnvironment): Promise<void>;
}
