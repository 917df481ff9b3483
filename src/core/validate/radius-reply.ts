// The reply attributes of authsrv's RADIUS server (issue 22): what an Access-Accept tells the NAS
// about the user, so that a VPN can assign a profile. They come from the authorization policy
// radius_reply, matched like every policy by realm, user, resolver and client (the NAS's
// address): `Filter-Id={groups}; Session-Timeout=28800; Class=staff`. `{name}` in a value is the
// user's attribute of that name (a store field, or username/realm/resolver); a list gives one
// attribute per element, and an attribute that the user lacks leaves the reply attribute out.
import { ParameterError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { RequestPolicies } from './policies.ts';
import type { CheckResult } from './request.ts';

/** The attributes a reply may carry, and whether their value is an integer. */
export const RADIUS_REPLY_ATTRIBUTES = {
  Class: 'text',
  'Filter-Id': 'text',
  'Session-Timeout': 'integer',
  'Reply-Message': 'text',
} as const;
export type RadiusReplyName = keyof typeof RADIUS_REPLY_ATTRIBUTES;

export interface RadiusReplyAttribute {
  name: RadiusReplyName;
  value: string;
}

interface Template {
  name: RadiusReplyName;
  value: string;
}

/** Parses a radius_reply value; a ParameterError names what is wrong. */
export function parseRadiusReply(text: string): Template[] {
  const out: Template[] = [];
  for (const part of text.split(';')) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0 || !Object.hasOwn(RADIUS_REPLY_ATTRIBUTES, name))
      throw new ParameterError(
        `Invalid radius_reply item '${item}': give <Attribute>=<value> with ${Object.keys(RADIUS_REPLY_ATTRIBUTES).join(', ')}`,
      );
    out.push({ name: name as RadiusReplyName, value: item.slice(eq + 1).trim() });
  }
  return out;
}

function valuesOf(v: unknown): string[] {
  if (v === null || v === undefined || v === '') return [];
  if (Array.isArray(v)) return v.flatMap(valuesOf);
  return [String(v)];
}

/** The values of a template for the user: one per element of a list attribute, none if missing. */
function expand(template: string, attributes: Readonly<Record<string, unknown>>): string[] {
  const names = [...template.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return [template];
  // One list attribute may expand to several values; the others give their first value.
  const lists = names.map((n) => valuesOf(attributes[n]));
  if (lists.some((l) => l.length === 0)) return [];
  const spread = names.findIndex((_, i) => lists[i]!.length > 1);
  const count = spread < 0 ? 1 : lists[spread]!.length;
  const out: string[] = [];
  for (let k = 0; k < count; k++)
    out.push(
      template.replace(/\{([^{}]+)\}/g, (_, n: string) => {
        const i = names.indexOf(n);
        return i === spread ? lists[i]![k]! : lists[i]![0]!;
      }),
    );
  return out;
}

/**
 * The reply attributes of an accepted check for the NAS at `client`; none after a failure, for a
 * token without a user, or without a matching radius_reply policy. A policy whose value cannot be
 * read is logged and gives none (the login itself stands).
 */
export async function radiusReplyAttributes(
  rt: Runtime,
  res: CheckResult,
  client: string,
): Promise<RadiusReplyAttribute[]> {
  const user = res.user;
  if (res.value !== true || !user) return [];
  const pol = await RequestPolicies.of(rt, { login: user.login, realm: user.realm, user }, client);
  const text = pol.value('authorization', 'radius_reply', true);
  if (!text) return [];
  let templates: Template[];
  try {
    templates = parseRadiusReply(text);
  } catch (e) {
    rt.log.warn({ err: e }, 'the radius_reply policy cannot be read: no reply attributes');
    return [];
  }
  const attributes: Record<string, unknown> = {
    ...user.info,
    username: user.login,
    realm: user.realm,
    resolver: user.resolver,
  };
  const out: RadiusReplyAttribute[] = [];
  for (const t of templates)
    for (const value of expand(t.value, attributes)) {
      if (
        RADIUS_REPLY_ATTRIBUTES[t.name] === 'integer' &&
        !(/^\d{1,10}$/.test(value) && Number(value) <= 0xffffffff)
      )
        continue;
      // An attribute holds at most 253 octets: a longer value is left out, not cut.
      if (Buffer.byteLength(value, 'utf8') > 253) continue;
      out.push({ name: t.name, value });
    }
  return out;
}
