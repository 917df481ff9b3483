// Debian's reStructuredText parser (python3-docutils, .ci/run installs it): a document renders to
// HTML with rst2html, which stops on any warning (--halt=warning) and reports it.
import { execFileSync } from 'node:child_process';

export const RST2HTML = '/usr/bin/rst2html';

/** The HTML body of the document; throws with docutils' messages when it warns or errs. */
export function renderRst(text: string): string {
  try {
    const html = execFileSync(
      RST2HTML,
      ['--halt=warning', '--report=info', '--no-raw', '--no-file-insertion'],
      {
        input: text,
        encoding: 'utf8',
        stdio: ['pipe', 'pipe', 'pipe'],
        maxBuffer: 64 << 20,
      },
    );
    return html.slice(html.indexOf('<body>'), html.lastIndexOf('</body>'));
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`rst2html refused the document: ${err.stderr || err.message}`);
  }
}

/** The text of the HTML, tags removed and the few entities docutils writes decoded. */
export function htmlText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#64;/g, '@')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
