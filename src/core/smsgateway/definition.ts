// What a gateway definition holds and the rules of its values: which keys are secrets, how a
// request's option.* and header.* become the stored set (__CENSORED__ keeping a stored secret,
// under the destination rule), and the provider's checks. Nothing here touches the database.
import { ParameterError } from '../../errors.ts';
import { type GatewaySettings, type SmsProvider, smsProvider } from '../../gateways/sms/index.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { checkSecretReuse, type ReusableSettingSpec } from '../secret-reuse.ts';
import { CENSORED } from '../system/index.ts';

export type EntryType = 'option' | 'header';
export const ENTRY_TYPES: readonly EntryType[] = ['option', 'header'];

/** A stored value is sealed when its key holds PASSWORD or SECRET (privacyIDEA), or it is the Authorization header. */
export function isSecretKey(type: EntryType, key: string): boolean {
  const upper = key.toUpperCase();
  return (
    upper.includes('PASSWORD') || upper.includes('SECRET') || (type === 'header' && upper === 'AUTHORIZATION')
  );
}

/** A definition with its values in clear. */
export interface OpenDefinition {
  module: string;
  settings: { option: Record<string, string>; header: Record<string, string> };
}

/** A save request: the module, and option.<KEY> / header.<KEY> values as given. */
export interface DefinitionRequest {
  /** Omitted: the stored gateway's (an update that keeps its provider). */
  module?: string | undefined;
  option: Record<string, string>;
  header: Record<string, string>;
  /** Keep what the request does not name (and delete what it gives as ''), instead of replacing the set. */
  keepOmitted: boolean;
}

export function providerSettings(d: OpenDefinition): GatewaySettings {
  return { options: d.settings.option, headers: d.settings.header };
}

/** The value a request gives, or the stored secret it keeps with __CENSORED__. */
function requestedValue(
  type: EntryType,
  key: string,
  value: string,
  stored: OpenDefinition | undefined,
): string {
  checkLength(`${type}.${key}`, key, LIMITS.name);
  checkLength(`${type}.${key}`, value, LIMITS.text);
  if (key.trim() === '' || key.includes('\u0000') || value.includes('\u0000')) {
    throw new ParameterError(`${type}.${key}: keys and values must not be empty or hold NUL characters`);
  }
  if (value !== CENSORED || !isSecretKey(type, key)) return value;
  const kept = stored?.settings[type][key];
  if (kept === undefined) throw new ParameterError(`${type}.${key} is ${CENSORED} but no value is stored`);
  return kept;
}

/** The set of one entry type after the request: replaced, or merged into the stored one. */
function entriesAfter(
  type: EntryType,
  given: Record<string, string>,
  stored: OpenDefinition | undefined,
  keepOmitted: boolean,
): Record<string, string> {
  const out: Record<string, string> = keepOmitted ? { ...(stored?.settings[type] ?? {}) } : {};
  for (const [key, value] of Object.entries(given)) {
    if (value === '') delete out[key];
    else out[key] = requestedValue(type, key, value, stored);
  }
  return out;
}

/** The settings of the secret-reuse rule: `option.KEY`/`header.KEY`, and the module, which is every secret's destination too. */
function reuseView(d: OpenDefinition): Record<string, string> {
  const out: Record<string, string> = { module: d.module };
  for (const type of ENTRY_TYPES)
    for (const [k, v] of Object.entries(d.settings[type])) out[`${type}.${k}`] = v;
  return out;
}

function reuseSpecs(provider: SmsProvider, keys: Iterable<string>): Record<string, ReusableSettingSpec> {
  const declared = Object.entries(provider.parameters).flatMap(([, p]) => p.destination ?? []);
  const destination = [...new Set(declared)].map((k) => `option.${k}`).concat('module');
  const specs: Record<string, ReusableSettingSpec> = {};
  for (const key of keys) specs[key] = { type: 'string' };
  for (const [name, p] of Object.entries(provider.parameters)) {
    if (p.destination) specs[`option.${name}`] = { type: 'password', destination };
  }
  // Secrets the provider does not declare (an HTTP gateway's api_secret option, a header) go where the declared ones go.
  specs.module = { type: 'string', destination };
  return specs;
}

/** Refuses a kept secret whose destination (URL, host, account, module …) the request changes. */
function checkReuse(
  provider: SmsProvider,
  stored: OpenDefinition,
  after: OpenDefinition,
  given: Set<string>,
): void {
  const before = reuseView(stored);
  const requested = reuseView(after);
  const secrets = new Set(
    Object.keys(requested).filter((k) => {
      const [type, ...rest] = k.split('.');
      return rest.length > 0 && isSecretKey(type as EntryType, rest.join('.'));
    }),
  );
  const specs = reuseSpecs(provider, [...Object.keys(before), ...Object.keys(requested)]);
  checkSecretReuse({ specs, stored: before, requested, secrets, given });
}

/** Checks settings against the provider: allowed keys, required ones, allowed values, its own checks. */
function checkAgainstProvider(provider: SmsProvider, d: OpenDefinition, rt: Runtime): void {
  const { option, header } = d.settings;
  if (!provider.headersAllowed && Object.keys(header).length > 0) {
    throw new ParameterError(`The SMS provider ${provider.module} takes no headers`);
  }
  for (const key of Object.keys(option)) {
    if (!provider.optionsAllowed && !(key in provider.parameters)) {
      throw new ParameterError(
        `Unknown option '${key}' for ${provider.module}: use ${Object.keys(provider.parameters).join(', ')}`,
      );
    }
  }
  for (const [key, p] of Object.entries(provider.parameters)) {
    const value = option[key];
    if (p.required && (value ?? '') === '') throw ParameterError.missing(`option.${key}`);
    if (value !== undefined && p.values && !p.values.includes(value)) {
      throw new ParameterError(`option.${key} must be one of ${p.values.join(', ')}, not '${value}'`);
    }
  }
  provider.check(providerSettings(d), { log: rt.log, scriptsDir: rt.config.sms.scriptsDir });
}

/**
 * The definition a save stores: the request applied to the stored one (if any), checked. Throws a
 * ParameterError for an unknown module, a missing or bad value, a kept secret sent elsewhere.
 */
export function definitionToSave(
  rt: Runtime,
  request: DefinitionRequest,
  stored: OpenDefinition | undefined,
): OpenDefinition {
  const module = request.module || stored?.module;
  if (!module) throw ParameterError.missing('module');
  const provider = smsProvider(module);
  const after: OpenDefinition = {
    module: provider.module,
    settings: {
      option: entriesAfter('option', request.option, stored, request.keepOmitted),
      header: entriesAfter('header', request.header, stored, request.keepOmitted),
    },
  };
  if (stored) {
    const given = new Set<string>();
    for (const type of ENTRY_TYPES) {
      for (const [k, v] of Object.entries(request[type])) if (v !== CENSORED) given.add(`${type}.${k}`);
    }
    checkReuse(provider, stored, after, given);
  }
  checkAgainstProvider(provider, after, rt);
  return after;
}
