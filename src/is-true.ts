// privacyIDEA's is_true (reference 0.x "Boolean parsing"): the one truth test of request
// parameters, policy values, system configuration and resolver settings. Only 1, "1", the JSON
// true, "True", "true" and "TRUE" are true; everything else ("yes", "on", "t", " 1") is false.
const TRUE_TEXTS: ReadonlySet<string> = new Set(['1', 'True', 'true', 'TRUE']);

export function isTrue(value: unknown): boolean {
  return value === true || value === 1 || (typeof value === 'string' && TRUE_TEXTS.has(value));
}
