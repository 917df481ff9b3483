// Yubico personalization tool CSV files: Yubico OTP (AES) and OATH-HOTP modes.
import { modhexToHex } from '../../../tokens/index.ts';
import { HEX } from './oathcsv.ts';
import type { ParsedFile, ParsedToken } from './parsed.ts';

/** A public id (modhex) as the serial number it encodes, or undefined when it is not one. */
function modhexToInt(text: string): number | undefined {
  const hex = modhexToHex(text);
  if (hex === undefined) return undefined;
  const n = Number.parseInt(hex, 16);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * The log of the Yubico personalization tool, traditional form
 * (`Yubico OTP|OATH-HOTP|Static Password, date, slot, public id, private uid, key, …`) or Yubico
 * form (`serial, public id, private uid|0|empty, key, …`). Yubico OTP lines become `yubikey`
 * tokens (UBAM<serial>_<slot>), OATH-HOTP lines hotp tokens (UBOM…); static passwords cannot be
 * imported (their password cannot be derived without the private uid).
 */
export function parseYubikeyCsv(text: string): ParsedFile {
  const out: ParsedFile = { tokens: [], rejected: [] };
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const source = `line ${i + 1}`;
    const entry = readLine(
      line.split(',').map((c) => c.trim()),
      source,
    );
    if ('reason' in entry) out.rejected.push({ serial: entry.serial, source, reason: entry.reason });
    else if (!HEX.test(entry.otpkey))
      out.rejected.push({ serial: entry.serial, source, reason: 'the key is not hexadecimal' });
    else out.tokens.push({ ...entry, otpkey: entry.otpkey.toLowerCase() });
  }
  return out;
}

type LineResult = ParsedToken | { reason: string; serial?: string };

function readLine(cols: string[], source: string): LineResult {
  if (cols.length < 6) return { reason: 'not enough columns' };
  const first = (cols[0] as string).toLowerCase();
  if (first === 'yubico otp' || first === 'oath-hotp' || first === 'static password')
    return traditionalLine(cols, first, source);
  if (/^\d+$/.test(first)) return yubicoLine(cols, first, source);
  return { reason: `unknown line type '${cols[0]}'` };
}

/** `Yubico OTP|OATH-HOTP|Static Password, date, slot, public id, private uid, key, …` */
function traditionalLine(cols: string[], mode: string, source: string): LineResult {
  const slot = cols[2] as string;
  const publicId = cols[3] as string;
  const otpkey = cols[5] as string;
  if (mode === 'static password') return { reason: 'static passwords can not be imported' };
  if (publicId === '') return { reason: 'no public id' };
  const serialInt = modhexToInt(publicId);
  if (serialInt === undefined) return { reason: `the public id '${publicId}' is not modhex` };
  const num = String(serialInt).padStart(8, '0');
  return mode === 'yubico otp'
    ? {
        serial: `UBAM${num}_${slot}`,
        type: 'yubikey',
        otpkey,
        otplen: 32 + publicId.length,
        description: publicId,
        source,
      }
    : { serial: `UBOM${num}_${slot}`, type: 'hotp', otpkey, otplen: 6, description: publicId, source };
}

/** `serial, public id, private uid|0|empty, key, …` */
function yubicoLine(cols: string[], serial: string, source: string): LineResult {
  const otpkey = cols[3] as string;
  const mode = cols[2] as string;
  if (mode === '') return { reason: 'static passwords can not be imported', serial: `UBSM${serial}_X` };
  if (mode === '0')
    return { serial: `UBOM${serial}_X`, type: 'hotp', otpkey, otplen: 6, description: '', source };
  const publicId = cols[1] as string;
  return {
    serial: `UBAM${serial}_X`,
    type: 'yubikey',
    otpkey,
    otplen: 32 + publicId.length,
    description: publicId,
    source,
  };
}
