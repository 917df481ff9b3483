// OATH CSV token files: `serial, key[, type, otplen, timestep|counter]`, and version 2 with owners.
import { isHashlib } from '../../../tokens/index.ts';
import type { ParsedFile, ParsedToken } from './parsed.ts';

export const HEX = /^([0-9a-fA-F]{2})+$/;

export function intOr(text: string | undefined, fallback: number | undefined): number | undefined {
  const t = (text ?? '').trim();
  if (t === '') return fallback;
  return /^\d+$/.test(t) ? Number(t) : Number.NaN;
}

/**
 * `serial, key, hotp, [6|8], [counter]`, `serial, key, totp, [6|8], [30|60]` (an optional sixth
 * column names the hashlib), `serial, key, ocra, [suite]`, `serial, key, tan, tans`; a missing type
 * is hotp. A first line `# version: 2` prefixes each line with `username, resolver, realm`.
 * Comment lines (#) and lines without a comma are skipped.
 */
export function parseOathCsv(text: string): ParsedFile {
  const out: ParsedFile = { tokens: [], rejected: [] };
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const version = /^#\s*version:\s*(\d+)/.exec(lines[0] ?? '')?.[1];
  const readEntry = (line: string, i: number): unknown => {
    const source = `line ${i + 1}`;
    if (line.startsWith('#')) return;
    const cols = line.split(',').map((c) => c.trim());
    // Spreadsheets write empty rows as `,,,`.
    if (cols.length <= 1 || cols.every((c) => c === '')) return;
    let user: ParsedToken['user'];
    if (version === '2') {
      const [username = '', resolver = '', realm = ''] = cols.splice(0, 3);
      if (username) user = { username, resolver, realm };
    }
    const [serial = '', key = '', rawType = 'hotp', c3, c4, c5] = cols;
    const reject = (reason: string) => out.rejected.push({ serial: serial || undefined, source, reason });
    if (serial === '') return reject('no serial');
    if (key === '') return reject('no key');
    const type = (rawType || 'hotp').toLowerCase();
    if (type !== 'hotp' && type !== 'totp') {
      return reject(
        type === 'ocra' || type === 'tan'
          ? `authsrv has no ${type} token type`
          : `the token type '${type}' can not be imported from OATH CSV`,
      );
    }
    if (!HEX.test(key)) return reject('the key is not hexadecimal');
    const otplen = intOr(c3, 6);
    if (otplen !== 6 && otplen !== 8) return reject(`the OTP length must be 6 or 8, not '${c3}'`);
    const token: ParsedToken = { serial, type, otpkey: key.toLowerCase(), otplen, user, source };
    if (type === 'hotp') {
      const counter = intOr(c4, 0);
      if (counter === undefined || Number.isNaN(counter))
        return reject(`the counter '${c4}' is not a number`);
      token.counter = counter;
    } else {
      const step = intOr(c4, 30);
      if (step !== 30 && step !== 60) return reject(`the time step must be 30 or 60, not '${c4}'`);
      token.timeStep = step;
    }
    if (c5) {
      const hashlib = c5.toLowerCase();
      if (!isHashlib(hashlib)) return reject(`unknown hashlib '${c5}'`);
      token.hashlib = hashlib;
    }
    out.tokens.push(token);
  };
  for (const [i, line] of lines.entries()) readEntry(line, i);
  return out;
}
