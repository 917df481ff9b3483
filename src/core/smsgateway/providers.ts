// GET /smsgateway/providers: every provider with its parameters, keyed by module, as privacyIDEA's
// parameters() of each class.
import { SMS_PROVIDERS } from '../../gateways/sms/index.ts';

export interface ProviderView {
  options_allowed: boolean;
  headers_allowed: boolean;
  parameters: Record<string, { required?: boolean; description: string; values?: string[] }>;
}

export function smsProviders(): Record<string, ProviderView> {
  const out: Record<string, ProviderView> = {};
  for (const p of SMS_PROVIDERS) {
    const parameters: ProviderView['parameters'] = {};
    for (const [name, spec] of Object.entries(p.parameters)) {
      parameters[name] = {
        ...(spec.required ? { required: true } : {}),
        description: spec.description,
        ...(spec.values ? { values: [...spec.values] } : {}),
      };
    }
    out[p.module] = { options_allowed: p.optionsAllowed, headers_allowed: p.headersAllowed, parameters };
  }
  return out;
}
