// Python's urllib.parse.unquote: %XX runs decode as UTF-8 (invalid bytes become U+FFFD), a '%' not
// followed by two hex digits stays as it is, and '+' is left alone.
const RUN = /(?:%[0-9A-Fa-f]{2})+/g;

export function pythonUnquote(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(RUN, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  });
}
