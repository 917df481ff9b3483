// SCIM filters (RFC 7644 §3.4.2.2) for lookups and searches. Values are JSON string literals, as
// the RFC defines them, so quotes and backslashes in a value cannot break out of the filter.
// Searches filter on the path without its selectors (`emails.value`) on the server and then check
// the mapped value locally, so results are exact; a path deeper than attribute.sub-attribute is
// filtered locally only (ScimPath.filterAttr is undefined then).

const literal = (s: string) => JSON.stringify(s);

/** `attr eq "value"`. */
export function equalsCondition(attr: string, value: string): string {
  return `${attr} eq ${literal(value)}`;
}

/** The conditions (to be AND-ed) for a privacyIDEA search value with `*` wildcards. */
export function wildcardConditions(attr: string, pattern: string): string[] {
  if (!pattern.includes('*')) return [equalsCondition(attr, pattern)];
  const parts = pattern.split('*');
  const out: string[] = [];
  if (parts[0]) out.push(`${attr} sw ${literal(parts[0])}`);
  for (const middle of parts.slice(1, -1)) if (middle) out.push(`${attr} co ${literal(middle)}`);
  const last = parts[parts.length - 1];
  if (last) out.push(`${attr} ew ${literal(last)}`);
  return out;
}
