// The terminal and PNG QR codes of the CLI decode to the text they were made of, read back by
// an independent decoder.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { terminalQr, writeQrPng } from '../../src/cli/qr.ts';
import { decodeQrFile, decodeTerminalQr } from '../helpers/qr-decode.ts';

const URI =
  'otpauth://totp/TOTP0000C536?secret=LO33ANXKQYDWOWOSEMK6UHJS3AD6ZFGK&period=30&digits=6&issuer=authsrv';
const dir = mkdtempSync(join(tmpdir(), 'authsrv-cliqr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('terminalQr', () => {
  it('draws half blocks that decode to the URI, two modules a line, within 80 columns', () => {
    const drawing = terminalQr(URI);
    expect(drawing).toMatch(/^[ ▀▄█\n]+$/);
    const lines = drawing.split('\n');
    expect([...lines[0]!].length).toBeLessThanOrEqual(80);
    expect(lines.length).toBeLessThan([...lines[0]!].length);
    expect(decodeTerminalQr(drawing)).toBe(URI);
  });

  it('wraps each line in white-on-black ANSI colours when asked, the same drawing inside', () => {
    const plain = terminalQr(URI).split('\n');
    const colored = terminalQr(URI, true).split('\n');
    expect(colored).toEqual(plain.map((l) => `\x1b[97;40m${l}\x1b[0m`));
  });
});

describe('writeQrPng', () => {
  it('writes a PNG of mode 0600 that decodes to the URI', () => {
    const file = join(dir, 'token.png');
    writeQrPng(URI, file);
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
    expect((statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(decodeQrFile(file)).toBe(URI);
  });

  it('never overwrites a file', () => {
    const file = join(dir, 'twice.png');
    writeQrPng(URI, file);
    expect(() => writeQrPng('otpauth://totp/other?secret=AAAA', file)).toThrow(/EEXIST/);
    expect(decodeQrFile(file)).toBe(URI);
  });
});
