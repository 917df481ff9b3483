// The templates file of a local CA (reference 8.5, `templates`): YAML mapping a template name to
// its validity and extensions. privacyIDEA's own files name an openssl.cnf extensions section
// (`extensions: user`); authsrv does not read openssl.cnf, so the usual section names map to the
// usages they conventionally hold, and a template may give them itself:
//
//   vpn:
//     days: 365
//     key_usage: [digitalSignature, keyEncipherment]
//     extended_key_usage: [clientAuth]
//     subject_required: [CN]
import { parse } from 'yaml';
import { ParameterError } from '../errors.ts';
import type { TemplateView } from './ca-type.ts';

export const KEY_USAGES = [
  'digitalSignature',
  'nonRepudiation',
  'keyEncipherment',
  'dataEncipherment',
  'keyAgreement',
  'keyCertSign',
  'cRLSign',
  'encipherOnly',
  'decipherOnly',
] as const;

/** Extended key usages by their OpenSSL names. */
export const EXTENDED_KEY_USAGES: Readonly<Record<string, string>> = {
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
  codeSigning: '1.3.6.1.5.5.7.3.3',
  emailProtection: '1.3.6.1.5.5.7.3.4',
  timeStamping: '1.3.6.1.5.5.7.3.8',
  OCSPSigning: '1.3.6.1.5.5.7.3.9',
};

/** The openssl.cnf extension sections privacyIDEA's example templates name. */
const SECTIONS: Readonly<Record<string, Pick<TemplateView, 'key_usage' | 'extended_key_usage'>>> = {
  user: {
    key_usage: ['digitalSignature', 'keyEncipherment'],
    extended_key_usage: ['clientAuth', 'emailProtection'],
  },
  server: { key_usage: ['digitalSignature', 'keyEncipherment'], extended_key_usage: ['serverAuth'] },
  usr_cert: {
    key_usage: ['digitalSignature', 'keyEncipherment'],
    extended_key_usage: ['clientAuth', 'emailProtection'],
  },
  server_cert: { key_usage: ['digitalSignature', 'keyEncipherment'], extended_key_usage: ['serverAuth'] },
};

/** The template used when the request names none and the CA has no templates. */
export const DEFAULT_TEMPLATE: TemplateView = {
  days: 365,
  key_usage: ['digitalSignature', 'keyEncipherment'],
  extended_key_usage: [],
  subject_required: ['CN'],
};

const MAX_DAYS = 36500;

function list(name: string, field: string, v: unknown): string[] {
  if (v === undefined || v === null) return [];
  const items = typeof v === 'string' ? v.split(/[\s,]+/).filter((s) => s !== '') : v;
  if (!Array.isArray(items) || !items.every((i) => typeof i === 'string'))
    throw new ParameterError(`templates: ${field} of template '${name}' must be a list of names`);
  return items;
}

function templateOf(name: string, raw: unknown): TemplateView {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new ParameterError(`templates: template '${name}' must be a mapping`);
  const t = raw as Record<string, unknown>;
  const days = t.days ?? DEFAULT_TEMPLATE.days;
  if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > MAX_DAYS)
    throw new ParameterError(
      `templates: days of template '${name}' must be a whole number from 1 to ${MAX_DAYS}`,
    );
  let usages = { key_usage: DEFAULT_TEMPLATE.key_usage, extended_key_usage: [] as string[] };
  if (t.extensions !== undefined) {
    const section = SECTIONS[String(t.extensions)];
    if (section) usages = { ...section };
  }
  const keyUsage = t.key_usage !== undefined ? list(name, 'key_usage', t.key_usage) : usages.key_usage;
  for (const k of keyUsage)
    if (!(KEY_USAGES as readonly string[]).includes(k))
      throw new ParameterError(
        `templates: unknown key usage '${k}' in template '${name}': use ${KEY_USAGES.join(', ')}`,
      );
  const eku =
    t.extended_key_usage !== undefined
      ? list(name, 'extended_key_usage', t.extended_key_usage)
      : usages.extended_key_usage;
  for (const k of eku)
    if (!Object.hasOwn(EXTENDED_KEY_USAGES, k) && !/^\d+(\.\d+)+$/.test(k))
      throw new ParameterError(
        `templates: unknown extended key usage '${k}' in template '${name}': use ${Object.keys(EXTENDED_KEY_USAGES).join(', ')} or an OID`,
      );
  const required = list(name, 'subject_required', t.subject_required ?? DEFAULT_TEMPLATE.subject_required);
  return { days, key_usage: keyUsage, extended_key_usage: eku, subject_required: required };
}

/** The templates of a YAML text; a ParameterError when it does not parse or a template is wrong. */
export function parseTemplates(text: string): Record<string, TemplateView> {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 10 });
  } catch (e) {
    throw new ParameterError(
      `templates: the file is not valid YAML (${(e as Error).message.split('\n')[0]})`,
    );
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new ParameterError('templates: the file must be a mapping of template names to templates');
  const out: Record<string, TemplateView> = {};
  for (const [name, raw] of Object.entries(doc as Record<string, unknown>)) out[name] = templateOf(name, raw);
  return out;
}
