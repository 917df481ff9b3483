// `GET /token/?outform=csv` (reference 3.4): the token records as privacyIDEA writes them.
import type { TokenView } from './view.ts';

function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

function csvCell(v: unknown): string {
  const text =
    typeof v === 'string' ? v : typeof v === 'boolean' || typeof v === 'number' ? pyRepr(v) : pyRepr(v);
  return `'${text.replace(/\r?\n|\r/g, ' ')}', `;
}

/** `/token/?outform=csv` (reference 3.4): keys of the first record, then one line per token. */
export function tokensCsv(tokens: readonly TokenView[]): string {
  if (tokens.length === 0) return '';
  const keys = Object.keys(tokens[0]!);
  const lines = [keys.map((k) => `'${k}', `).join('')];
  for (const t of tokens) lines.push(keys.map((k) => csvCell(t[k])).join(''));
  return `${lines.join('\n')}\n`;
}
