// privacyIDEA's search values: `*` is the only wildcard (any text, also none) and every other
// character stands for itself. The one reading of such a value, as a test of a text and as an SQL
// LIKE pattern. Request text never becomes a regular expression: a compiled `.*a.*a.*a…` takes
// exponential time on a long value, and a value too long for the engine fails to compile.

/**
 * The test of a search value, case-insensitive unless asked: `*` any text, everything else
 * literal; without wildcards the value must be equal. Each literal part is looked for once, left
 * to right, with indexOf: no backtracking, whatever the pattern.
 */
export function wildcardMatcher(
  pattern: string,
  { caseSensitive = false }: { caseSensitive?: boolean } = {},
): (value: string | undefined) => boolean {
  const fold = caseSensitive ? (s: string) => s : (s: string) => s.toLowerCase();
  const parts = fold(pattern).split('*');
  return (value) => value !== undefined && matchParts(parts, fold(value));
}

/** Whether `value` is the literal parts in order, with anything between them. */
function matchParts(parts: readonly string[], value: string): boolean {
  const first = parts[0] as string;
  if (parts.length === 1) return value === first;
  const last = parts[parts.length - 1] as string;
  if (value.length < first.length + last.length) return false;
  if (!value.startsWith(first) || !value.endsWith(last)) return false;
  // The leftmost place of each middle part leaves the most room for the parts after it.
  const end = value.length - last.length;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] as string;
    if (part === '') continue;
    const found = value.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/** The escape character of the LIKE patterns below: `… LIKE ${pattern} ESCAPE ${sql.lit(LIKE_ESCAPE)}`. */
export const LIKE_ESCAPE = '!';

/**
 * A LIKE pattern matching `text` literally: `%`, `_` and the escape character are escaped. (A
 * backslash as the escape would need different quoting on MySQL, so it is `!`.)
 */
export function likeLiteral(text: string): string {
  return text.replace(/[!%_]/g, (c) => `${LIKE_ESCAPE}${c}`);
}

/** A LIKE pattern of a search value: `*` becomes `%`, everything else is literal. */
export function likeWildcard(pattern: string): string {
  return likeLiteral(pattern).replace(/\*/g, '%');
}
