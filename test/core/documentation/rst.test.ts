// The reStructuredText writer with values that are markup in RST: every one must come out of
// Debian's docutils (rst2html --halt=warning, which fails on any warning) as the same text, in a
// table cell and in a title, never as emphasis, a reference, a directive, a list or a substitution.
import { describe, expect, it } from 'vitest';
import { columnWidth, escapeText, paragraph, section, table } from '../../../src/core/documentation/rst.ts';
import { htmlText, renderRst } from '../../helpers/docutils.ts';

const NASTY = [
  '*emphasis* and **strong**',
  '`interpreted` and ``literal`` and `link <http://x>`_',
  '|substitution| a | b',
  '.. include:: /etc/passwd',
  '.. raw:: html',
  '..',
  '- not a list',
  '* not a list either',
  '+ plus',
  '#. auto enum',
  '1. one',
  'a) letter',
  'iv. roman',
  '(3) paren',
  ':field: list',
  '-o option list',
  '>>> doctest',
  '| line block',
  '----------',
  '==========',
  'trailing_ reference_',
  '[1]_ footnote [#]_ and [citation]_',
  '_`target` and __anonymous',
  'ends in a backslash \\',
  'back\\slash \\* star',
  'literal block follows::',
  'ends with colons::',
  'http://example.org/x and mailto:a@b.example and www.example.org',
  'alice@example.org',
  'key: value',
  ':role:`x` and :sub:',
  'tab\there',
  'control\u0001char\u007f',
  'Ünïcödé and 日本語のテキスト and emoji 🔑',
  `long ${'word '.repeat(40)}end`,
  `unbroken${'x'.repeat(200)}`,
  '__CENSORED__',
  'password: __CENSORED__ and x__CENSORED__',
  '',
];

/** What a value must read as after rendering: white space collapsed, control characters as spaces. */
function expected(value: string): string {
  return value
    .replace(/\p{Cc}/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const squash = (s: string) => s.replace(/\s+/g, ' ');

describe('rst writer', () => {
  it('escapes every nasty value in a table so that docutils renders it as the same text', () => {
    const rows = NASTY.map((v, i) => [String(i), v]);
    const doc = [...section('Title', 0), ...section('Values', 1), ...table(['N', 'Value'], rows)].join('\n');
    const html = renderRst(doc);
    expect(html).not.toMatch(/<em>|<strong>|<cite>|<a |<ol|<ul|<dl|<blockquote|system-message|<pre/);
    const text = squash(htmlText(html));
    for (const v of NASTY) if (v !== '') expect(text).toContain(expected(v));
  });

  it('keeps the lines of a multi-line value as a line block', () => {
    const value = 'first line\n.. second\n\n* third\r\nfourth | with bar';
    const html = renderRst(table(['Key', 'Value'], [['multi', value]]).join('\n'));
    expect(html).toContain('line-block');
    expect(html).not.toMatch(/<ul|system-message|<ol/);
    const text = htmlText(html);
    for (const l of ['first line', '.. second', '* third', 'fourth | with bar']) expect(text).toContain(l);
  });

  it('escapes titles and paragraphs, and underlines wide characters long enough', () => {
    for (const v of NASTY.filter((x) => x.length < 80 && x !== '')) {
      const doc = [
        ...section('Doc', 0),
        ...section(v, 1),
        ...paragraph(v),
        ...section(`${v} sub`, 2),
        ...paragraph('x'),
      ];
      const html = renderRst(doc.join('\n'));
      expect(squash(htmlText(html))).toContain(expected(v));
    }
    expect(columnWidth('日本')).toBe(4);
    expect(columnWidth('ab')).toBe(2);
  });

  it('writes (none) for a table without rows and one line for escapeText', () => {
    expect(table(['A'], [])).toEqual(['\\(none)', '']);
    expect(escapeText('a\nb')).toBe('a b');
    expect(escapeText('*x*')).toBe('\\*x\\*');
    expect(escapeText('secret: __CENSORED__')).toBe('secret: __CENSORED__');
    expect(escapeText('a:: b::')).toBe('a\\:\\: b\\:\\:');
  });
});
