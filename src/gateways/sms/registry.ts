// The SMS providers by module, in the order GET /smsgateway/providers lists them. Adding a provider
// is one file and one line here. Modules of privacyIDEA that authsrv does not offer are refused
// with the reason.
import { ParameterError } from '../../errors.ts';
import { httpProvider } from './http.ts';
import type { SmsProvider } from './provider.ts';
import { scriptProvider } from './script.ts';
import { smppProvider } from './smpp.ts';
import { smtpProvider } from './smtp.ts';

export const SMS_PROVIDERS: readonly SmsProvider[] = [
  httpProvider,
  smtpProvider,
  smppProvider,
  scriptProvider,
];

/** Modules privacyIDEA has that authsrv does not offer, with the reason. */
const NOT_OFFERED: Readonly<Record<string, string>> = {
  'privacyidea.lib.smsprovider.SipgateSMSProvider.SipgateSMSProvider':
    "is not offered: use the HTTP provider with Sipgate's API",
  'privacyidea.lib.smsprovider.FirebaseProvider.FirebaseProvider':
    'is not an SMS provider (push tokens use it)',
};

/** The provider of a module path or short name; anything else is a ParameterError naming the choices. */
export function smsProvider(module: string): SmsProvider {
  const found = SMS_PROVIDERS.find((p) => p.module === module || p.shortName === module);
  if (found) return found;
  const reason = NOT_OFFERED[module];
  if (reason) throw new ParameterError(`The SMS provider ${module} ${reason}`);
  throw new ParameterError(
    `Unknown SMS provider module '${module}': use one of ${SMS_PROVIDERS.map((p) => `${p.module} (${p.shortName})`).join(', ')}`,
  );
}
