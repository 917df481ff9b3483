// SMS gateways (/smsgateway/, reference 8.2): named definitions of an SMS provider module with its
// options and headers (secrets sealed, shown as __CENSORED__), the providers and their parameters,
// and sendSms, which sends one message through a gateway and says whether it went out.

export { isSecretKey as isSmsGatewaySecret } from './definition.ts';
export {
  deleteSmsGateway,
  deleteSmsGatewayOption,
  listSmsGateways,
  type SaveSmsGatewayRequest,
  type SmsGatewayView,
  saveSmsGateway,
} from './gateways.ts';
export { type ProviderView, smsProviders } from './providers.ts';
export { type SmsResult, sendSms } from './send.ts';
