// Python's urllib.parse.unquote: %XX runs decode as UTF-8 (invalid bytes become U+FFFD), a '%' not
// followed by two hex digits stays as it is, and '+' is left alone. A decoded byte order mark is
// kept: Python's utf-8 codec does not strip it (TextDecoder would by default).
const RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const UTF8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

export function pythonUnquote(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(RUN, (run) => UTF8.decode(Buffer.from(run.replace(/%/g, ''), 'hex')));
}
