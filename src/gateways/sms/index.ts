// SMS providers (plug-in family): how a message reaches a phone through an SMS gateway definition
// (HTTP, a mail through an SMTP server, SMPP, a script). src/core/smsgateway stores the definitions and asks these.
export {
  type GatewaySettings,
  type ProviderParameter,
  type SendEnvironment,
  type SmsProvider,
  SmsSendError,
} from './provider.ts';
export { SMS_PROVIDERS, smsProvider } from './registry.ts';
