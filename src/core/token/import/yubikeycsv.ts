// Yubico personalization tool CSV files: Yubico OTP (AES) and OATH-HOTP modes.
import { HEX } from './oathcsv.ts';
import type { ParsedFile, ParsedToken } from './parsed.ts';

const MODHEX = 'cbdefghijklnrtuv';

function modhexToInt(text: string): number | undefined {
  let hex = '';
  for (const ch of text.toLowerCase()) {
    const i = MODHEX.indexOf(ch);
    if (i < 0) return undefined;
    hex += i.toString(16);
  }
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
  const readEntry = (raw: string, i: number): unknown => {
    const line = raw.replace(/\r$/, '');
    const source = `line ${i + 1}`;
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const cols = line.split(',').map((c) => c.trim());
    const reject = (reason: string, serial?: string) => out.rejected.push({ serial, source, reason });
    if (cols.length < 6) return reject('not enough columns');
    const first = (cols[0] as string).toLowerCase();
    let token: ParsedToken;
    if (first === 'yubico otp' || first === 'oath-hotp' || first === 'static password') {
      const slot = cols[2] as string;
      const publicId = cols[3] as string;
      const key = cols[5] as string;
      if (first === 'static password') return reject('static passwords can not be imported');
      if (publicId === '') return reject('no public id');
      const serialInt = modhexToInt(publicId);
      if (serialInt === undefined) return reject(`the public id '${publicId}' is not modhex`);
      const num = String(serialInt).padStart(8, '0');
      token =
        first === 'yubico otp'
          ? {
              serial: `UBAM${num}_${slot}`,
              type: 'yubikey',
              otpkey: key,
              otplen: 32 + publicId.length,
              description: publicId,
              source,
            }
          : {
              serial: `UBOM${num}_${slot}`,
              type: 'hotp',
              otpkey: key,
              otplen: 6,
              description: publicId,
              source,
            };
    } else if (/^\d+$/.test(first)) {
      const key = cols[3] as string;
      const mode = cols[2] as string;
      if (mode === '') return reject('static passwords can not be imported', `UBSM${first}_X`);
      token =
        mode === '0'
          ? { serial: `UBOM${first}_X`, type: 'hotp', otpkey: key, otplen: 6, description: '', source }
          : {
              serial: `UBAM${first}_X`,
              type: 'yubikey',
              otpkey: key,
              otplen: 32 + (cols[1] as string).length,
              description: cols[1] as string,
              source,
            };
    } else {
      return reject(`unknown line type '${cols[0]}'`);
    }
    if (!HEX.test(token.otpkey)) return reject('the key is not hexadecimal', token.serial);
    token.otpkey = token.otpkey.toLowerCase();
    out.tokens.push(token);
  };
  for (const [i, raw] of text.split('\n').entries()) readEntry(raw, i);
  return out;
}
