// QR codes of an enrollment's otpauth URI for the operator at a terminal: drawn with UTF-8 half
// blocks (two modules a character, so that the code fits an 80×24 terminal), and as a PNG file.
// The phone scans the terminal over SSH; no image viewer is needed on the server.
import { writeFileSync } from 'node:fs';
import { type Bitmap2D, correction, generate } from 'lean-qr';
import { toPngBuffer } from 'lean-qr/extras/node_export';

/** Modules of light margin around the code (scanners need a quiet zone; 2 is enough on screens). */
const MARGIN = 2;

/** The character of a cell: its upper and lower module, light ones drawn. */
const CELLS = [' ', '▄', '▀', '█'] as const;

function codeOf(text: string): Bitmap2D {
  return generate(text, { minCorrectionLevel: correction.M, maxCorrectionLevel: correction.M });
}

/**
 * The code as lines of text. Light modules are the drawn ones (as `qrencode -t UTF8` does), which
 * is right on the usual light-on-dark terminal; `colors` adds ANSI colours (white on black) so that
 * it is right on any terminal.
 */
export function terminalQr(text: string, colors = false): string {
  const code = codeOf(text);
  const light = (x: number, y: number) =>
    x < 0 || y < 0 || x >= code.size || y >= code.size || !code.get(x, y);
  const lines: string[] = [];
  for (let y = -MARGIN; y < code.size + MARGIN; y += 2) {
    let line = '';
    for (let x = -MARGIN; x < code.size + MARGIN; x++)
      line += CELLS[(light(x, y) ? 2 : 0) + (light(x, y + 1) ? 1 : 0)];
    lines.push(colors ? `\x1b[97;40m${line}\x1b[0m` : line);
  }
  return lines.join('\n');
}

/**
 * Writes the code as a PNG image (8 pixels a module, 4 modules of margin). The file holds the
 * token's seed: it is created with mode 0600 and never overwrites an existing file.
 */
export function writeQrPng(text: string, file: string): void {
  // Opaque colours: the library's default background is transparent, which viewers show as black.
  const png = toPngBuffer(codeOf(text), { scale: 8, pad: 4, on: [0, 0, 0, 255], off: [255, 255, 255, 255] });
  writeFileSync(file, png, { mode: 0o600, flag: 'wx' });
}
