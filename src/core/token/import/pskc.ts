// PSKC token files (RFC 6030): plain, pre-shared key or password-derived key, with ValueMAC checks.
import { createDecipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { MAX_PBKDF2_ITERATIONS, pbkdf2Key } from '../../../crypto/index.ts';
import { isHashlib } from '../../../tokens/index.ts';
import { intOr } from './oathcsv.ts';
import { fileError, type ParsedFile, type ParsedToken, type Rejected, type ValidateMac } from './parsed.ts';
import { attr, kid, kids, parseXml, text, type XNode } from './xml.ts';

export interface PskcOptions {
  /** The pre-shared AES-128 key, 32 hex characters. */
  psk?: string | undefined;
  /** The password of a PBKDF2-derived key. */
  password?: string | undefined;
  validateMac?: ValidateMac | undefined;
}

const YUBICO_ALGORITHMS: Record<string, [string, string]> = {
  'http://www.yubico.com/#yubikey-aes': ['yubikey', 'UBAM'],
  'urn:ietf:params:xml:ns:keyprov:pskc:hotp': ['hotp', 'UBOM'],
};

/** AES-128-CBC with the IV in front of the ciphertext (xmlenc#aes128-cbc), PKCS#7 padding. */
function aesCbcDecrypt(key: Buffer, data: Buffer): Buffer {
  if (data.length < 32 || data.length % 16 !== 0) throw new Error('the encrypted value has a wrong length');
  const d = createDecipheriv('aes-128-cbc', key, data.subarray(0, 16));
  return Buffer.concat([d.update(data.subarray(16)), d.final()]);
}

async function derivedKey(container: XNode, password: string | undefined): Promise<Buffer> {
  if (!password) {
    throw fileError('pskc', 'the KeyContainer specifies a derived encryption key, but no password is given');
  }
  const method = kid(container, 'encryptionkey', 'derivedkey', 'keyderivationmethod');
  const algorithm = (attr(method, 'algorithm') ?? '').split('#').pop()?.toLowerCase();
  if (algorithm !== 'pbkdf2') throw fileError('pskc', 'only PBKDF2 is supported as key derivation function');
  const params = kid(method, 'pbkdf2-params');
  const salt = Buffer.from(text(kid(params, 'salt')), 'base64');
  const rounds = Number(text(kid(params, 'iterationcount')));
  const length = Number(text(kid(params, 'keylength')) || '16');
  if (!Number.isInteger(rounds) || rounds < 1 || length !== 16) {
    throw fileError('pskc', 'the PBKDF2 parameters are invalid (IterationCount, KeyLength 16)');
  }
  if (rounds > MAX_PBKDF2_ITERATIONS) {
    throw fileError('pskc', `the PBKDF2 IterationCount is above ${MAX_PBKDF2_ITERATIONS}`);
  }
  return pbkdf2Key(password, salt, rounds, length, 'sha1');
}

/** The hashlib of `<Suite>` (text `SHA256`, `HMAC-SHA256` or privacyIDEA's attribute hashalgo). */
function suiteHashlib(suite: XNode | undefined): string {
  const raw = (attr(suite, 'hashalgo') ?? text(suite)).toLowerCase().replace(/^hmac-?/, '');
  const name = raw.replace('-', '');
  return isHashlib(name) ? name : 'sha1';
}

/** What decrypting the secrets of a container needs, and whether a wrong MAC aborts the file. */
interface Decryption {
  /** The pre-shared or derived key; undefined for a file of plain secrets. */
  key: Buffer | undefined;
  validateMac: ValidateMac;
  /** The container's MAC key (null when there is none or it does not decrypt). */
  macKey(): Buffer | null;
  /** check_fail_hard found a wrong MAC: nothing of the file is imported. */
  abort: boolean;
}

async function decryption(container: XNode, opts: PskcOptions): Promise<Decryption> {
  let key: Buffer | undefined;
  if (kid(container, 'encryptionkey', 'derivedkey')) key = await derivedKey(container, opts.password);
  else if (opts.psk) key = Buffer.from(opts.psk, 'hex');
  let macKey: Buffer | undefined | null;
  return {
    key,
    validateMac: opts.validateMac ?? 'check_fail_hard',
    abort: false,
    macKey() {
      if (macKey !== undefined) return macKey;
      const cipher = text(kid(container, 'macmethod', 'mackey', 'cipherdata', 'ciphervalue'));
      try {
        macKey = key && cipher ? aesCbcDecrypt(key, Buffer.from(cipher, 'base64')) : null;
      } catch {
        // A wrong key: every MAC is then wrong.
        macKey = null;
      }
      return macKey;
    },
  };
}

/**
 * The KeyPackages of a PSKC KeyContainer. Encrypted secrets need the pre-shared key (or the
 * password of a derived key); their ValueMAC is checked with the container's MAC key unless
 * `no_check`: `check_fail_soft` skips a token with a wrong MAC, `check_fail_hard` imports nothing
 * when any MAC is wrong. A secret that does not decrypt makes the file an error (wrong key).
 */
export async function parsePskc(content: string, opts: PskcOptions = {}): Promise<ParsedFile> {
  const out: ParsedFile = { tokens: [], rejected: [] };
  const container = kid(parseXml(content, 'pskc'), 'keycontainer');
  if (!container) throw fileError('pskc', 'No KeyContainer found in PSKC data. Could not import any tokens.');
  const d = await decryption(container, opts);
  for (const [i, pkg] of kids(container, 'keypackage').entries()) {
    const entry = readPackage(pkg, `KeyPackage ${i + 1}`, d);
    if ('reason' in entry) out.rejected.push(entry);
    else out.tokens.push(entry);
  }
  if (d.abort) {
    // check_fail_hard: one wrong MAC and nothing of the file is imported.
    for (const t of out.tokens)
      out.rejected.push({ serial: t.serial, source: t.source, reason: 'a MAC in the file is wrong' });
    out.tokens = [];
  }
  return out;
}

/** The serial and type of a KeyPackage (Yubico's `<no>:<slot>` ids get their serial prefix). */
function identity(pkg: XNode, k: XNode): { serial: string; type: string } {
  const algorithm = attr(k, 'algorithm') ?? '';
  const serial = attr(k, 'id') ?? '';
  const yubico = YUBICO_ALGORITHMS[algorithm];
  if (yubico && /^\d+:\d+$/.test(serial)) {
    const [no, slot] = serial.split(':');
    return { type: yubico[0], serial: `${yubico[1]}${no}_${slot}` };
  }
  return {
    serial: text(kid(pkg, 'deviceinfo', 'serialno')) || serial,
    type: (algorithm.split(':').pop() ?? '').toLowerCase(),
  };
}

/** One KeyPackage: the token, or why it is not imported. */
function readPackage(pkg: XNode, source: string, d: Decryption): ParsedToken | Rejected {
  const k = kid(pkg, 'key');
  if (!k) return { source, reason: 'no Key' };
  const { serial, type } = identity(pkg, k);
  const reject = (reason: string): Rejected => ({ serial: serial || undefined, source, reason });
  if (!serial) return reject('no serial (DeviceInfo/SerialNo or Key Id)');
  const params = kid(k, 'algorithmparameters');
  const lengthText = attr(kid(params, 'responseformat'), 'length');
  const otplen = intOr(lengthText, 6);
  if (otplen === undefined || Number.isNaN(otplen) || otplen < 1)
    return reject(`invalid ResponseFormat Length '${lengthText}'`);
  const otpkey = secretHex(kid(k, 'data', 'secret'), d);
  if (typeof otpkey !== 'string') return reject(otpkey.reason);
  if (otpkey === '') return reject('empty secret');
  return {
    serial,
    type,
    otpkey,
    otplen,
    hashlib: suiteHashlib(kid(params, 'suite')),
    description: text(kid(pkg, 'deviceinfo', 'manufacturer')) || undefined,
    source,
    // What the file says of the counter and the clock; the token type takes what it uses.
    ...dataOf(kid(k, 'data')),
  };
}

/** The secret as hex, decrypted and its MAC checked as the file asks; or why it is not imported. */
function secretHex(secret: XNode | undefined, d: Decryption): string | { reason: string } {
  const plain = kid(secret, 'plainvalue');
  const encrypted = kid(secret, 'encryptedvalue');
  if (plain) return Buffer.from(text(plain), 'base64').toString('hex');
  if (!encrypted) return { reason: 'no secret' };
  const method = (attr(kid(encrypted, 'encryptionmethod'), 'algorithm') ?? '').split('#').pop();
  if (method?.toLowerCase() !== 'aes128-cbc')
    throw fileError('pskc', 'only PSKC files encrypted with AES128-CBC can be imported');
  if (!d.key)
    throw fileError('pskc', 'found an encrypted secret, but no pre-shared key or password is given');
  const cipher = Buffer.from(text(kid(encrypted, 'cipherdata', 'ciphervalue')), 'base64');
  if (d.validateMac !== 'no_check') {
    const mk = d.macKey();
    const given = Buffer.from(text(kid(secret, 'valuemac')), 'base64');
    const expected = mk ? createHmac('sha1', mk).update(cipher).digest() : undefined;
    const good =
      expected !== undefined && given.length === expected.length && timingSafeEqual(given, expected);
    if (!good) {
      if (d.validateMac === 'check_fail_soft') return { reason: 'the MAC of the secret is wrong' };
      d.abort = true;
    }
  }
  try {
    return aesCbcDecrypt(d.key, cipher).toString('hex');
  } catch (e) {
    if (d.abort) return { reason: 'the MAC of the secret is wrong' };
    throw fileError('pskc', `Failed to import tokendata. Wrong encryption key? ${(e as Error).message}`);
  }
}

/** The counter, time step and drift of a Key's Data, where the file gives valid ones. */
function dataOf(data: XNode | undefined): Pick<ParsedToken, 'counter' | 'timeStep' | 'timeShift'> {
  const out: Pick<ParsedToken, 'counter' | 'timeStep' | 'timeShift'> = {};
  const counter = intOr(text(kid(data, 'counter')), undefined);
  if (counter !== undefined && !Number.isNaN(counter)) out.counter = counter;
  const step = intOr(text(kid(data, 'timeinterval')), undefined);
  if (step !== undefined && !Number.isNaN(step) && step > 0) out.timeStep = step;
  const drift = Number(text(kid(data, 'timedrift')) || 'x');
  if (Number.isInteger(drift)) out.timeShift = drift;
  return out;
}
