// Reading typed values out of a resolver's text settings, the way privacyIDEA stores them.
import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import type { ResolverSettings } from './user-store.ts';

export function settingText(s: ResolverSettings, key: string, fallback = ''): string {
  return s[key] ?? fallback;
}

/** privacyIDEA's booleans: True/true/1 (and the JSON true) are true, anything else false. */
export function settingBool(s: ResolverSettings, key: string, fallback = false): boolean {
  const v = s[key];
  if (v === undefined || v === '') return fallback;
  return isTrue(v);
}

export function settingInt(
  s: ResolverSettings,
  key: string,
  fallback: number,
  min = 0,
  max = 2 ** 31 - 1,
): number {
  const v = s[key];
  if (v === undefined || v === '') return fallback;
  if (!/^-?\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max) {
    throw new ParameterError(`${key} must be a whole number from ${min} to ${max}, got '${v}'`);
  }
  return Number(v);
}

export function settingJson<T>(s: ResolverSettings, key: string, fallback: T): T {
  const v = s[key];
  if (v === undefined || v === '') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    throw new ParameterError(`${key} must be valid JSON, got '${v.slice(0, 80)}'`);
  }
}

/** A JSON object mapping privacyIDEA attribute names to store attribute/column names. */
export function settingMap(
  s: ResolverSettings,
  key: string,
  fallback: Record<string, string>,
): Record<string, string> {
  const map = settingJson<unknown>(s, key, fallback);
  if (map === null || typeof map !== 'object' || Array.isArray(map)) {
    throw new ParameterError(`${key} must be a JSON object mapping attribute names to names`);
  }
  for (const [k, v] of Object.entries(map)) {
    if (typeof v !== 'string') throw new ParameterError(`${key}: the value of '${k}' must be a string`);
  }
  return map as Record<string, string>;
}
