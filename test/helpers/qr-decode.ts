// Reads QR codes back with an independent decoder (Debian's zbarimg; .ci/run installs
// zbar-tools): from PNG files, and from the half-block text `authsrv token init` draws, which is
// turned into a PGM image first (light modules are the drawn halves).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The text of the QR code in an image file. */
export function decodeQrFile(file: string): string {
  try {
    // stderr ignored: zbarimg complains about a missing D-Bus on machines without one.
    const out = execFileSync('zbarimg', ['--raw', '-q', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.replace(/\n$/, '');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(
        'zbarimg is not installed: apt-get install -y zbar-tools (the CI script .ci/run installs it)',
      );
    throw e;
  }
}

/** Upper and lower module of each half-block character, true for light. */
const HALVES: Record<string, [boolean, boolean]> = {
  ' ': [false, false],
  '▄': [false, true],
  '▀': [true, false],
  '█': [true, true],
};

/** The text of a QR code drawn with half blocks (lines of equal length, no escape codes). */
export function decodeTerminalQr(drawing: string): string {
  const lines = drawing.split('\n');
  const width = [...lines[0]!].length;
  const rows: boolean[][] = [];
  for (const line of lines) {
    const cells = [...line].map((c) => {
      const halves = HALVES[c];
      if (!halves) throw new Error(`not a half-block character: ${JSON.stringify(c)}`);
      return halves;
    });
    if (cells.length !== width) throw new Error(`ragged QR drawing: ${cells.length} != ${width}`);
    rows.push(
      cells.map((h) => h[0]),
      cells.map((h) => h[1]),
    );
  }
  const scale = 6;
  const pixels = Buffer.alloc(rows.length * scale * width * scale);
  for (const [y, row] of rows.entries())
    for (const [x, light] of row.entries())
      for (let dy = 0; dy < scale; dy++) {
        const at = ((y * scale + dy) * width + x) * scale;
        pixels.fill(light ? 255 : 0, at, at + scale);
      }
  const dir = mkdtempSync(join(tmpdir(), 'authsrv-qrtext-'));
  try {
    const file = join(dir, 'code.pgm');
    writeFileSync(
      file,
      Buffer.concat([Buffer.from(`P5 ${width * scale} ${rows.length * scale} 255\n`), pixels]),
    );
    return decodeQrFile(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
