// The SMS providers by module, in the order GET /smsgateway/providers lists them. Adding a provider
// is one file and one line here. The SMTP provider (privacyIDEA's SmtpSMSProvider: a mail to an
// SMS gateway address through an SMTP server definition) has its slot reserved: it comes once
// SMTP server definitions exist, and until then its module is refused with that reason.
import { ParameterError } from '../../errors.ts';
import { httpProvider } from './http.ts';
import type { SmsProvider } from './provider.ts';
import { scriptProvider } from './script.ts';
import { smppProvider } from './smpp.ts';

export const SMS_PROVIDERS: readonly SmsProvider[] = [httpProvider, smppProvider, scriptProvider];

/** Modules privacyIDEA has that authsrv does not offer (yet), with the reason. */
const NOT_OFFERED: Readonly<Record<string, string>> = {
  'privacyidea.lib.smsprovider.SmtpSMSProvider.SmtpSMSProvider':
    'is not available yet (it needs SMTP server definitions)',
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
