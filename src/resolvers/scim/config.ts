// The settings of a SCIM resolver read into a ScimConfig: the token endpoint and the Users URL,
// the client credentials, and the Mapping parsed into attribute paths (path.ts).
//
// `Authserver` may be the token endpoint itself or the authorisation server's base URL; see
// tokenEndpoint(). Mapping is a JSON object privacyIDEA attribute → SCIM attribute path, merged over
// DEFAULT_MAPPING (a key mapped to "" is dropped; username and userid cannot be).
import { ParameterError } from '../../errors.ts';
import { settingInt, settingMap } from '../settings.ts';
import type { ResolverSettings, SettingSpec } from '../user-store.ts';
import { parseScimPath, type ScimPath } from './path.ts';
import { DEFAULT_MAPPING, SCIM_SETTINGS } from './settings.ts';

/**
 * The token endpoint for an `Authserver` value. privacyIDEA always requests `<Authserver>/oauth/token`,
 * so a base URL (`https://auth.example.org`, `https://host/uaa`) gets `/oauth/token` appended. A URL
 * whose last path segment starts with `token` is taken as the token endpoint itself, so the usual
 * providers work as configured (`…/protocol/openid-connect/token`, `…/oauth2/v2.0/token`,
 * `…/v1/token`, `…/as/token.oauth2`, and `<base>/oauth/token`, which stays as it is).
 */
export function tokenEndpoint(authserver: string): string {
  const url = new URL(authserver);
  const segments = url.pathname.replace(/\/+$/, '').split('/');
  if (/^token/i.test(segments[segments.length - 1] ?? '')) return url.href;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/oauth/token`;
  return url.href;
}

type SettingKey = keyof typeof SCIM_SETTINGS;

/** The settings under their canonical names, whichever spelling was stored. */
function canonical(settings: ResolverSettings): ResolverSettings {
  const out: ResolverSettings = {};
  for (const [key, spec] of Object.entries(SCIM_SETTINGS) as [SettingKey, SettingSpec][]) {
    for (const name of [key, ...(spec.aliases ?? [])]) {
      const v = settings[name];
      if (v !== undefined && v !== '') {
        out[key] = v;
        break;
      }
    }
  }
  return out;
}

function httpUrl(value: string | undefined, key: string): URL {
  if (value === undefined || value.trim() === '') throw ParameterError.missing(key);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ParameterError(`${key} must be an http or https URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ParameterError(`${key} must be an http or https URL, got '${value}'`);
  }
  return url;
}

export interface ScimConfig {
  tokenUrl: string;
  usersUrl: string;
  client: string;
  secret: string;
  mapping: Map<string, ScimPath>;
  timeoutMs: number;
  cacheMs: number;
}

export function parseConfig(settings: ResolverSettings): ScimConfig {
  const s = canonical(settings);
  const tokenUrl = tokenEndpoint(httpUrl(s.Authserver, 'Authserver').href);
  const resource = httpUrl(s.Resourceserver, 'Resourceserver');
  if (resource.search !== '' || resource.hash !== '') {
    throw new ParameterError(
      `Resourceserver must be a base URL without query or fragment, got '${s.Resourceserver}'`,
    );
  }
  const client = s.Client ?? '';
  if (client === '') throw ParameterError.missing('Client');
  const given = settingMap(s, 'Mapping', {});
  const mapping = new Map<string, ScimPath>();
  for (const [key, path] of Object.entries({ ...DEFAULT_MAPPING, ...given })) {
    if (path.trim() === '') {
      if (key === 'username' || key === 'userid')
        throw new ParameterError(`Mapping: '${key}' cannot be empty`);
      continue;
    }
    try {
      mapping.set(key, parseScimPath(path));
    } catch (e) {
      throw new ParameterError(`Mapping: '${key}': ${(e as Error).message}`);
    }
  }
  return {
    tokenUrl,
    usersUrl: `${resource.origin}${resource.pathname.replace(/\/+$/, '')}/Users`,
    client,
    secret: s.Secret ?? '',
    mapping,
    timeoutMs: settingInt(s, 'TIMEOUT', 5, 1, 3600) * 1000,
    cacheMs: settingInt(s, 'CACHE_TIMEOUT', 120, 0) * 1000,
  };
}
