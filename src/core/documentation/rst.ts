// A small reStructuredText writer for the configuration document: every value from the database
// (names, descriptions, settings an administrator typed) is text, never markup. Inline markup
// characters are escaped with a backslash, a line that could open a block construct (a directive
// `..`, a list item, a field, a line block, a transition) gets its first character escaped,
// control characters are dropped, and a value of several lines stays several lines (a line block
// in a table cell). Tables are grid tables, whose cells may hold any text of any length; widths
// count East Asian wide characters twice, as docutils does.

/**
 * Characters that may start or end inline markup, references, roles or substitutions; a colon only
 * where it could be part of a role, a URI or a `::` literal-block marker (not before white space,
 * so that `name: value` stays readable); `@`, which makes a mail address a link.
 */
const INLINE = /[\\`*_|[\]<>@]|:(?=\S)|(?<=:):/g;

/** A line that begins like a block construct: punctuation, or an enumerator such as `1.` `a)` `iv.`. */
const BLOCK_START = /^(?:[^\p{L}\p{N}\s]|[\p{L}\p{N}]+[.)](?:\s|$))/u;

/**
 * The censored marker between white space stays as it is (docutils reads it as plain text), so
 * that the document says __CENSORED__ in its source as the API does.
 */
const CENSORED_WORD = /(?<=^|\s)__CENSORED__(?=\s|$)/;

/** The text of one line, with inline markup escaped and its start made harmless. */
function escapeLine(line: string): string {
  const text = line
    .split(CENSORED_WORD)
    .map((part) => part.replace(INLINE, (c) => `\\${c}`))
    .join('__CENSORED__');
  return BLOCK_START.test(line) && !text.startsWith('\\') ? `\\${text}` : text;
}

/** Lines of a value: line breaks of any kind split it; tabs become spaces; control characters go. */
function linesOf(value: string): string[] {
  return value
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    .replace(/\p{Cc}|\u2028|\u2029/gu, (c) => (c === '\n' ? c : ' '))
    .split('\n')
    .map((l) => l.trim());
}

/** A one-line value as escaped inline text (titles, paragraphs); line breaks become spaces. */
export function escapeText(value: string): string {
  return escapeLine(
    linesOf(value)
      .filter((l) => l !== '')
      .join(' '),
  );
}

/** Columns a string takes in docutils' tables: East Asian wide and full-width characters take two. */
export function columnWidth(text: string): number {
  let w = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    const wide =
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0x303e) ||
      (c >= 0x3041 && c <= 0x33ff) ||
      (c >= 0x3400 && c <= 0x4dbf) ||
      (c >= 0x4e00 && c <= 0x9fff) ||
      (c >= 0xa000 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x1f300 && c <= 0x1f64f) ||
      (c >= 0x1f900 && c <= 0x1f9ff) ||
      (c >= 0x20000 && c <= 0x3fffd);
    w += wide ? 2 : 1;
  }
  return w;
}

/** A section title with its underline (and overline for the document title, level 0). */
export function section(title: string, level: 0 | 1 | 2): string[] {
  const text = escapeText(title) || '\\-';
  const rule = '=-~'[level]!.repeat(columnWidth(text));
  return level === 0 ? [rule, text, rule, ''] : [text, rule, ''];
}

/** A paragraph of escaped text. */
export function paragraph(text: string): string[] {
  return [escapeText(text), ''];
}

/** Longest line of a cell before it is wrapped at white space (a longer word stays whole). */
const WRAP = 60;

function wrap(line: string): string[] {
  if (columnWidth(line) <= WRAP) return [line];
  const out: string[] = [];
  let current = '';
  for (const word of line.split(/ +/)) {
    if (current !== '' && columnWidth(current) + 1 + columnWidth(word) > WRAP) {
      out.push(current);
      current = word;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  if (current !== '') out.push(current);
  return out;
}

/** The lines of a cell: one line is a paragraph (wrapped); several are a line block. */
function cellLines(value: string): string[] {
  const lines = linesOf(value);
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  while (lines.length > 0 && lines[0] === '') lines.shift();
  if (lines.length <= 1) return wrap(lines[0] ?? '').map(escapeLine);
  // A line block: each line its own, an empty line kept as an empty line of the block.
  return lines.map((l) => (l === '' ? '|' : `| ${escapeLine(l)}`));
}

/** A grid table of the header and rows; every cell is plain text. No rows: the `none` paragraph. */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  none = '(none)',
): string[] {
  if (rows.length === 0) return paragraph(none);
  const cells = [header, ...rows].map((r) => header.map((_, i) => cellLines(r[i] ?? '')));
  const widths = header.map((_, i) => Math.max(1, ...cells.flatMap((r) => r[i]!.map(columnWidth))));
  const rule = (c: string) => `+${widths.map((w) => c.repeat(w + 2)).join('+')}+`;
  const out = [rule('-')];
  for (const [n, row] of cells.entries()) {
    const height = Math.max(1, ...row.map((c) => c.length));
    for (let k = 0; k < height; k++) {
      out.push(`|${row.map((c, i) => ` ${pad(c[k] ?? '', widths[i]!)} `).join('|')}|`);
    }
    out.push(rule(n === 0 ? '=' : '-'));
  }
  out.push('');
  return out;
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(width - columnWidth(text));
}
