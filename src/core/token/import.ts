// Importing token files (reference 3.5, POST /token/load): the parsers of OATH CSV (also version 2
// with owners), PSKC (RFC 6030: plain, pre-shared key, password-derived key; ValueMAC checks),
// Yubico personalization CSV and Aladdin/SafeNet XML, and the service that turns parsed entries
// into hardware tokens. As in privacyIDEA, a file that cannot be read at all is an error; within a
// readable file each token is counted as imported or not imported, and the reason for each one not
// imported is logged and returned.
import { createDecipheriv, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type Insertable, sql } from 'kysely';
import { ParameterError, PolicyError, TokenAdminError } from '../../errors.ts';
import {
  chunked,
  insertRows,
  rowsPerStatement,
  type TokenInfoTable,
  type TokenOwnerTable,
  type TokenRealmTable,
  type TokenTable,
} from '../../store/index.ts';
import { findTokenType, isHashlib } from '../../tokens/index.ts';
import { allow, grantedRealms, isAllowed } from '../access/index.ts';
import type { Context } from '../context.ts';
import { findUser, realmExists } from '../directory/index.ts';
import { checkLength, cutChars, LIMITS } from '../limits.ts';
import { findToken, sealKey, setTokenInfo, setTokenOwner, setTokenRealms, type TokenOwner } from './store.ts';
import { checkSerial, ownerRecord, typeSettings } from './token.ts';

/** The file types privacyIDEA knows, with their aliases, in its order (for the error message). */
export const KNOWN_FILE_TYPES = ['aladdin-xml', 'oathcsv', 'OATH CSV', 'yubikeycsv', 'Yubikey CSV', 'pskc'];

export type FileKind = 'aladdin-xml' | 'oathcsv' | 'yubikeycsv' | 'pskc';

const KIND_OF: Record<string, FileKind> = {
  'aladdin-xml': 'aladdin-xml',
  oathcsv: 'oathcsv',
  'OATH CSV': 'oathcsv',
  yubikeycsv: 'yubikeycsv',
  'Yubikey CSV': 'yubikeycsv',
  pskc: 'pskc',
};

export type ValidateMac = 'no_check' | 'check_fail_soft' | 'check_fail_hard';

/** One token found in a file. */
export interface ParsedToken {
  serial: string;
  type: string;
  /** The seed, hex. */
  otpkey: string;
  otplen?: number | undefined;
  hashlib?: string | undefined;
  timeStep?: number | undefined;
  timeShift?: number | undefined;
  counter?: number | undefined;
  description?: string | undefined;
  /** Version 2 OATH CSV: the owner. */
  user?: { username: string; resolver: string; realm: string } | undefined;
  /** Where it came from (`line 4`, `KeyPackage 2`), for messages. */
  source: string;
}

/** An entry of a file that is not imported, and why. */
export interface Rejected {
  serial?: string | undefined;
  source: string;
  reason: string;
}

export interface ParsedFile {
  tokens: ParsedToken[];
  rejected: Rejected[];
}

function fileError(kind: string, reason: string): TokenAdminError {
  return new TokenAdminError(`Could not import the ${kind} file: ${reason}`);
}

const HEX = /^([0-9a-fA-F]{2})+$/;

function intOr(text: string | undefined, fallback: number | undefined): number | undefined {
  const t = (text ?? '').trim();
  if (t === '') return fallback;
  return /^\d+$/.test(t) ? Number(t) : Number.NaN;
}

// ---------------------------------------------------------------------------------------------
// OATH CSV

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

// ---------------------------------------------------------------------------------------------
// Yubico personalization tool CSV

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

// ---------------------------------------------------------------------------------------------
// XML

type XNode = Record<string, unknown>;

/** Parses XML with lower-case names and no namespace prefixes; every element is a list. */
function parseXml(text: string, kind: string): XNode {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw fileError(kind, `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    alwaysCreateTextNode: true,
    transformTagName: (t) => t.toLowerCase(),
    transformAttributeName: (a) => a.toLowerCase(),
    isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
  });
  return parser.parse(text) as XNode;
}

function kids(node: XNode | undefined, name: string): XNode[] {
  const v = node?.[name];
  return Array.isArray(v) ? (v as XNode[]) : [];
}

function kid(node: XNode | undefined, ...path: string[]): XNode | undefined {
  let n = node;
  for (const name of path) n = kids(n, name)[0];
  return n;
}

/** The text of an element and its descendants (privacyIDEA reads `<Counter><PlainValue>` so). */
function text(node: XNode | undefined): string {
  if (!node) return '';
  let out = typeof node['#text'] === 'string' ? node['#text'] : '';
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith('@_') || k === '#text' || !Array.isArray(v)) continue;
    for (const child of v as XNode[]) out += text(child);
  }
  return out.trim();
}

function attr(node: XNode | undefined, name: string): string | undefined {
  const v = node?.[`@_${name.toLowerCase()}`];
  return typeof v === 'string' ? v : undefined;
}

// ---------------------------------------------------------------------------------------------
// Aladdin / SafeNet XML

/** `<Tokens><Token serial=…><ProductName/><Applications><Application><Seed>hex</Seed>…`: HOTP tokens. */
export function parseAladdinXml(content: string, hashlib?: string): ParsedFile {
  const out: ParsedFile = { tokens: [], rejected: [] };
  const root = kid(parseXml(content, 'aladdin-xml'), 'tokens');
  if (!root) throw fileError('aladdin-xml', 'no toplevel element Tokens');
  const readEntry = (t: XNode, i: number): unknown => {
    const source = `Token ${i + 1}`;
    const serial = attr(t, 'serial')?.trim();
    if (!serial) return out.rejected.push({ source, reason: 'no serial' });
    const seed = text(kid(t, 'applications', 'application', 'seed'));
    if (!seed) return out.rejected.push({ serial, source, reason: "no element 'Seed'" });
    if (!HEX.test(seed)) return out.rejected.push({ serial, source, reason: 'the seed is not hexadecimal' });
    const chosen =
      hashlib && hashlib !== 'auto' ? hashlib.toLowerCase() : seed.length === 64 ? 'sha256' : 'sha1';
    const description = text(kid(t, 'productname'));
    out.tokens.push({
      serial,
      type: 'hotp',
      otpkey: seed.toLowerCase(),
      otplen: 6,
      hashlib: chosen,
      description: description || undefined,
      source,
    });
  };
  for (const [i, t] of kids(root, 'token').entries()) readEntry(t, i);
  return out;
}

// ---------------------------------------------------------------------------------------------
// PSKC (RFC 6030)

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

function derivedKey(container: XNode, password: string | undefined): Buffer {
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
  return pbkdf2Sync(password, salt, rounds, length, 'sha1');
}

/** The hashlib of `<Suite>` (text `SHA256`, `HMAC-SHA256` or privacyIDEA's attribute hashalgo). */
function suiteHashlib(suite: XNode | undefined): string {
  const raw = (attr(suite, 'hashalgo') ?? text(suite)).toLowerCase().replace(/^hmac-?/, '');
  const name = raw.replace('-', '');
  return isHashlib(name) ? name : 'sha1';
}

/**
 * The KeyPackages of a PSKC KeyContainer. Encrypted secrets need the pre-shared key (or the
 * password of a derived key); their ValueMAC is checked with the container's MAC key unless
 * `no_check`: `check_fail_soft` skips a token with a wrong MAC, `check_fail_hard` imports nothing
 * when any MAC is wrong. A secret that does not decrypt makes the file an error (wrong key).
 */
export function parsePskc(content: string, opts: PskcOptions = {}): ParsedFile {
  const out: ParsedFile = { tokens: [], rejected: [] };
  const validateMac = opts.validateMac ?? 'check_fail_hard';
  const container = kid(parseXml(content, 'pskc'), 'keycontainer');
  if (!container) throw fileError('pskc', 'No KeyContainer found in PSKC data. Could not import any tokens.');
  let key: Buffer | undefined;
  if (kid(container, 'encryptionkey', 'derivedkey')) key = derivedKey(container, opts.password);
  else if (opts.psk) key = Buffer.from(opts.psk, 'hex');
  let macKey: Buffer | undefined | null;
  const containerMacKey = (): Buffer | null => {
    if (macKey !== undefined) return macKey;
    const cipher = text(kid(container, 'macmethod', 'mackey', 'cipherdata', 'ciphervalue'));
    try {
      macKey = key && cipher ? aesCbcDecrypt(key, Buffer.from(cipher, 'base64')) : null;
    } catch {
      // A wrong key: every MAC is then wrong.
      macKey = null;
    }
    return macKey;
  };
  let abort = false;
  const readEntry = (pkg: XNode, i: number): unknown => {
    const source = `KeyPackage ${i + 1}`;
    const k = kid(pkg, 'key');
    if (!k) return out.rejected.push({ source, reason: 'no Key' });
    const algorithm = attr(k, 'algorithm') ?? '';
    let serial = attr(k, 'id') ?? '';
    let type: string;
    const yubico = YUBICO_ALGORITHMS[algorithm];
    if (yubico && /^\d+:\d+$/.test(serial)) {
      const [no, slot] = serial.split(':');
      type = yubico[0];
      serial = `${yubico[1]}${no}_${slot}`;
    } else {
      serial = text(kid(pkg, 'deviceinfo', 'serialno')) || serial;
      type = (algorithm.split(':').pop() ?? '').toLowerCase();
    }
    const reject = (reason: string) => out.rejected.push({ serial: serial || undefined, source, reason });
    if (!serial) return reject('no serial (DeviceInfo/SerialNo or Key Id)');
    const params = kid(k, 'algorithmparameters');
    const lengthText = attr(kid(params, 'responseformat'), 'length');
    const otplen = intOr(lengthText, 6);
    if (otplen === undefined || Number.isNaN(otplen) || otplen < 1)
      return reject(`invalid ResponseFormat Length '${lengthText}'`);
    const secret = kid(k, 'data', 'secret');
    const plain = kid(secret, 'plainvalue');
    const encrypted = kid(secret, 'encryptedvalue');
    let otpkey: string;
    if (plain) {
      otpkey = Buffer.from(text(plain), 'base64').toString('hex');
    } else if (encrypted) {
      const method = (attr(kid(encrypted, 'encryptionmethod'), 'algorithm') ?? '').split('#').pop();
      if (method?.toLowerCase() !== 'aes128-cbc')
        throw fileError('pskc', 'only PSKC files encrypted with AES128-CBC can be imported');
      if (!key)
        throw fileError('pskc', 'found an encrypted secret, but no pre-shared key or password is given');
      const cipher = Buffer.from(text(kid(encrypted, 'cipherdata', 'ciphervalue')), 'base64');
      if (validateMac !== 'no_check') {
        const mk = containerMacKey();
        const given = Buffer.from(text(kid(secret, 'valuemac')), 'base64');
        const expected = mk ? createHmac('sha1', mk).update(cipher).digest() : undefined;
        const good =
          expected !== undefined && given.length === expected.length && timingSafeEqual(given, expected);
        if (!good) {
          if (validateMac === 'check_fail_soft') return reject('the MAC of the secret is wrong');
          abort = true;
        }
      }
      try {
        otpkey = aesCbcDecrypt(key, cipher).toString('hex');
      } catch (e) {
        if (abort) return reject('the MAC of the secret is wrong');
        throw fileError('pskc', `Failed to import tokendata. Wrong encryption key? ${(e as Error).message}`);
      }
    } else {
      return reject('no secret');
    }
    if (otpkey === '') return reject('empty secret');
    const data = kid(k, 'data');
    const token: ParsedToken = {
      serial,
      type,
      otpkey,
      otplen,
      hashlib: suiteHashlib(kid(params, 'suite')),
      description: text(kid(pkg, 'deviceinfo', 'manufacturer')) || undefined,
      source,
    };
    if (type === 'hotp' || type === 'totp') {
      const counter = intOr(text(kid(data, 'counter')), undefined);
      if (counter !== undefined && !Number.isNaN(counter)) token.counter = counter;
    }
    if (type === 'totp') {
      const step = intOr(text(kid(data, 'timeinterval')), undefined);
      if (step !== undefined && !Number.isNaN(step) && step > 0) token.timeStep = step;
      const drift = Number(text(kid(data, 'timedrift')) || 'x');
      if (Number.isInteger(drift)) token.timeShift = drift;
    }
    out.tokens.push(token);
  };
  for (const [i, pkg] of kids(container, 'keypackage').entries()) readEntry(pkg, i);
  if (abort) {
    // check_fail_hard: one wrong MAC and nothing of the file is imported.
    for (const t of out.tokens)
      out.rejected.push({ serial: t.serial, source: t.source, reason: 'a MAC in the file is wrong' });
    out.tokens = [];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The import service

export interface ImportRequest {
  /** The file type, one of KNOWN_FILE_TYPES. */
  type: string;
  content: string;
  /** Realms the tokens are put in. */
  tokenrealms?: readonly string[] | undefined;
  psk?: string | undefined;
  password?: string | undefined;
  pskcValidateMAC?: string | undefined;
  /** aladdin-xml: the hashlib of the seeds (`auto` by length). */
  aladdinHashlib?: string | undefined;
  /** Called after every token with the number done and the total. */
  onProgress?: ((done: number, total: number) => void) | undefined;
}

export interface ImportResult {
  n_imported: number;
  n_not_imported: number;
  imported: string[];
  notImported: Rejected[];
}

/** Reads a file into tokens: the checks of the request and the parser of its type. */
export function parseTokenFile(req: ImportRequest): ParsedFile {
  if (req.content.trim() === '') throw new ParameterError('Error loading token file. File empty!');
  const kind = KIND_OF[req.type];
  if (!kind) {
    throw new TokenAdminError(
      `Unknown file type: '${req.type}'. Supported file types are: ${KNOWN_FILE_TYPES.join(', ')}`,
    );
  }
  if (req.content.startsWith('-----BEGIN PGP MESSAGE-----')) {
    throw fileError(kind, 'PGP-encrypted files are not supported: decrypt the file first');
  }
  if (req.psk && !/^[0-9a-fA-F]{32}$/.test(req.psk)) {
    throw new TokenAdminError(
      'The Pre Shared Key must be 128 Bit hex encoded. It must be 32 characters long!',
    );
  }
  const mac = req.pskcValidateMAC || 'check_fail_hard';
  if (mac !== 'no_check' && mac !== 'check_fail_soft' && mac !== 'check_fail_hard') {
    throw new ParameterError(
      `pskcValidateMAC must be no_check, check_fail_soft or check_fail_hard, not '${mac}'`,
    );
  }
  switch (kind) {
    case 'oathcsv':
      return parseOathCsv(req.content);
    case 'yubikeycsv':
      return parseYubikeyCsv(req.content);
    case 'aladdin-xml':
      return parseAladdinXml(req.content, req.aladdinHashlib);
    case 'pskc':
      return parsePskc(req.content, { psk: req.psk, password: req.password, validateMac: mac });
  }
}

/**
 * The caller must hold `importtokens` for every realm the tokens go to; tokens in no realm need a
 * grant without realm restriction (as for other tokens in no realm).
 */
async function checkImportRight(ctx: Context, realms: readonly string[]): Promise<void> {
  if (realms.length === 0) {
    await allow(ctx, 'importtokens');
    if ((await grantedRealms(ctx, 'importtokens')) !== undefined) {
      throw new PolicyError('Admin actions are defined, but the action importtokens is not allowed!');
    }
    return;
  }
  for (const realm of realms) await allow(ctx, 'importtokens', { realm });
}

function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

function intSetting(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** The types whose whole state is a secret and an OTP length. */
const IMPORTABLE = new Set(['hotp', 'totp', 'pw', 'yubikey']);

/**
 * Tokens written per transaction. A batch is written with a few multi-row INSERTs; when any of
 * its writes fails, nothing of it stays and its tokens are written again one transaction each, so
 * that only the token at fault is not imported, with the reason of its own failure.
 */
export const IMPORT_BATCH = 500;

/** A token that passed every check, ready to be written. */
interface NewToken {
  row: Insertable<TokenTable>;
  info: Record<string, string>;
  owner: TokenOwner | undefined;
}

/** The checks of an entry that need no database: the reason when it cannot be imported. */
function entryProblem(t: ParsedToken): string | undefined {
  const type = findTokenType(t.type);
  if (!type) return `authsrv has no ${t.type} token type`;
  if (!IMPORTABLE.has(type.type)) return `tokens of type ${type.type} can not be imported`;
  try {
    checkSerial(t.serial);
  } catch {
    return `invalid serial '${t.serial}'`;
  }
  if (!HEX.test(t.otpkey)) return 'the key is not hexadecimal';
  if (t.otpkey.length > LIMITS.otpkey) return `the key is longer than ${LIMITS.otpkey} characters`;
  return undefined;
}

/**
 * Which of these serials name tokens in the store, with one query per IN list. Serials compare
 * exactly on every dialect (MariaDB tables have a binary collation), as findToken compares them.
 */
async function existingSerials(ctx: Context, serials: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunked([...new Set(serials)], rowsPerStatement(ctx.store.dialect, 1))) {
    const rows = await ctx.store.db
      .selectFrom('token')
      .select('serial')
      .where('serial', 'in', part)
      .execute();
    for (const r of rows) found.add(r.serial);
  }
  return found;
}

/** The checks that need the owner and the settings, and the rows of the token; or the reason. */
async function prepareToken(
  ctx: Context,
  t: ParsedToken,
  settings: { get(k: string): string | undefined },
): Promise<NewToken | string> {
  const type = findTokenType(t.type)!;
  const info: Record<string, string> = { tokenkind: 'hardware', creation_date: isoSeconds(ctx.clock()) };
  if (t.type === 'hotp' || t.type === 'totp') {
    const hashlib = (t.hashlib ?? 'sha1').toLowerCase();
    if (!isHashlib(hashlib)) return `unsupported hashlib '${t.hashlib}'`;
    info.hashlib = hashlib;
  }
  if (t.type === 'totp') {
    info.timeStep = String(t.timeStep ?? 30);
    info.timeWindow = settings.get('totp.timeWindow') || '180';
    info.timeShift = String(t.timeShift ?? 0);
  }
  let owner: Awaited<ReturnType<typeof findUser>>;
  if (t.user) {
    const u = t.user;
    try {
      owner = u.realm ? await findUser(ctx, u.username, u.realm) : undefined;
    } catch {
      owner = undefined;
    }
    if (!owner || (u.resolver && owner.resolver !== u.resolver)) {
      // privacyIDEA imports the token unassigned then.
      ctx.log.warn({ serial: t.serial, user: u }, 'token import: the user of the line does not exist');
      owner = undefined;
    } else if (
      !(await isAllowed(ctx, 'importtokens', {
        user: `${owner.login}@${owner.realm}`,
        resolver: owner.resolver,
      }))
    ) {
      return `the administrator may not import tokens for the user ${owner.login}@${owner.realm}`;
    }
  }
  const row: Insertable<TokenTable> = {
    serial: t.serial,
    tokentype: type.type,
    description: cutChars(t.description ?? 'imported', 80),
    otplen: t.otplen ?? intSetting(settings.get('DefaultOtpLen'), 6),
    key_enc: sealKey(ctx, Buffer.from(t.otpkey, 'hex')),
    pin_hash: '',
    maxfail: intSetting(settings.get('DefaultMaxFailCount'), 10),
    failcount: 0,
    count: type.type === 'hotp' ? (t.counter ?? 0) : 0,
    count_window: intSetting(settings.get('DefaultCountWindow'), 10),
    sync_window: intSetting(settings.get('DefaultSyncWindow'), 1000),
    active: 1,
    revoked: 0,
    locked: 0,
    rollout_state: '',
  };
  return { row, info, owner: owner && ownerRecord(owner) };
}

/** One token in a transaction of its own: the token row, its tokeninfo, realms and owner or nothing. */
async function writeToken(ctx: Context, n: NewToken, realms: readonly string[]): Promise<void> {
  await ctx.store.db.transaction().execute(async (trx) => {
    await trx.insertInto('token').values(n.row).execute();
    const { id } = await trx
      .selectFrom('token')
      .select('id')
      .where('serial', '=', n.row.serial)
      .executeTakeFirstOrThrow();
    await setTokenInfo(ctx, trx, id, n.info);
    await setTokenRealms(trx, id, realms);
    if (n.owner) await setTokenOwner(trx, id, n.owner);
  });
}

/**
 * A batch of tokens in one transaction, with the rows writeToken writes (tokeninfo inserted
 * rather than updated: the tokens are new), in multi-row INSERTs. Anything unexpected throws, and
 * the caller writes the batch token by token, which reports the token at fault as writeToken does.
 */
async function writeBatch(
  ctx: Context,
  batch: readonly NewToken[],
  realms: readonly string[],
): Promise<void> {
  const dialect = ctx.store.dialect;
  for (const n of batch) {
    for (const [key, value] of Object.entries(n.info)) {
      checkLength('tokeninfo key', key, LIMITS.name);
      checkLength(`tokeninfo ${key.slice(0, 40)}`, value, LIMITS.text);
    }
  }
  await ctx.store.db.transaction().execute(async (trx) => {
    await insertRows(
      trx,
      dialect,
      'token',
      batch.map((n) => n.row),
    );
    const ids = new Map<string, number>();
    for (const part of chunked(
      batch.map((n) => n.row.serial),
      rowsPerStatement(dialect, 1),
    )) {
      const rows = await trx
        .selectFrom('token')
        .select(['id', 'serial'])
        .where('serial', 'in', part)
        .execute();
      for (const r of rows) ids.set(r.serial, r.id);
    }
    // The ids of the import's realms and of the owners' realms, in one query.
    const ownerRealms = [...new Set(batch.flatMap((n) => (n.owner ? [n.owner.realm] : [])))];
    const realmNames = [...new Set([...realms.map((r) => r.toLowerCase()), ...ownerRealms])];
    const realmIds = new Map<string, number>();
    if (realmNames.length > 0) {
      const rows = await trx
        .selectFrom('realm')
        .select(['id', 'name'])
        .where('name', 'in', realmNames)
        .execute();
      for (const r of rows) realmIds.set(r.name, r.id);
    }
    const tokenRealmIds = [
      ...new Set(
        realms.flatMap((r) => {
          const id = realmIds.get(r.toLowerCase());
          return id === undefined ? [] : [id];
        }),
      ),
    ];
    const infos: Insertable<TokenInfoTable>[] = [];
    const links: Insertable<TokenRealmTable>[] = [];
    const owners: Insertable<TokenOwnerTable>[] = [];
    for (const n of batch) {
      const id = ids.get(n.row.serial);
      if (id === undefined) throw new Error(`the token ${n.row.serial} was not found after its insert`);
      for (const [key, value] of Object.entries(n.info)) infos.push({ token_id: id, key, value, type: '' });
      for (const realmId of tokenRealmIds) links.push({ token_id: id, realm_id: realmId });
      if (n.owner) {
        const realmId = realmIds.get(n.owner.realm);
        if (realmId === undefined) throw new Error(`the realm ${n.owner.realm} was not found`);
        owners.push({ token_id: id, resolver: n.owner.resolver, user_id: n.owner.userId, realm_id: realmId });
        if (!tokenRealmIds.includes(realmId)) links.push({ token_id: id, realm_id: realmId });
      }
    }
    await insertRows(trx, dialect, 'tokeninfo', infos);
    await insertRows(trx, dialect, 'tokenrealm', links);
    await insertRows(trx, dialect, 'tokenowner', owners);
  });
}

/** What became of one parsed token: its reason not to be imported, or the rows to write. */
type Outcome = { reason: string } | { token: NewToken };

/**
 * Checks one batch of parsed tokens (in file order, as single tokens were checked before: a serial
 * seen earlier in the file, the entry, an existing token, the hashlib and the owner) and writes
 * the good ones. `seen` carries the serials of the file across batches.
 */
async function importBatch(
  ctx: Context,
  tokens: readonly ParsedToken[],
  realms: readonly string[],
  settings: { get(k: string): string | undefined },
  seen: Set<string>,
): Promise<(string | undefined)[]> {
  const outcomes: (Outcome | undefined)[] = tokens.map((t) => {
    if (seen.has(t.serial)) return { reason: `the serial ${t.serial} appears twice in the file` };
    seen.add(t.serial);
    const reason = entryProblem(t);
    return reason === undefined ? undefined : { reason };
  });
  const pending = tokens.filter((_, i) => outcomes[i] === undefined);
  let exists: (serial: string) => Promise<boolean>;
  try {
    const found = await existingSerials(
      ctx,
      pending.map((t) => t.serial),
    );
    exists = async (serial) => found.has(serial);
  } catch {
    // Asked again token by token below, where a failure is that token's.
    exists = async (serial) => (await findToken(ctx, serial)) !== undefined;
  }
  for (const [i, t] of tokens.entries()) {
    if (outcomes[i] !== undefined) continue;
    try {
      if (await exists(t.serial))
        outcomes[i] = { reason: `a token with the serial ${t.serial} exists already` };
      else {
        const prepared = await prepareToken(ctx, t, settings);
        outcomes[i] = typeof prepared === 'string' ? { reason: prepared } : { token: prepared };
      }
    } catch (e) {
      ctx.log.error({ err: e, serial: t.serial }, 'token import failed');
      outcomes[i] = { reason: `could not be stored: ${(e as Error).message}` };
    }
  }
  const batch = outcomes.flatMap((o) => (o && 'token' in o ? [o.token] : []));
  let batchFailed = false;
  if (batch.length > 0) {
    try {
      await writeBatch(ctx, batch, realms);
    } catch (e) {
      ctx.log.debug({ err: e, tokens: batch.length }, 'token import: batch not written, one token at a time');
      batchFailed = true;
    }
  }
  const reasons: (string | undefined)[] = [];
  for (const o of outcomes) {
    if (!o) throw new Error('token import: an entry without outcome');
    if ('reason' in o) {
      reasons.push(o.reason);
      continue;
    }
    if (!batchFailed) {
      reasons.push(undefined);
      continue;
    }
    const serial = o.token.row.serial;
    try {
      // A token written by someone else since the check above exists now.
      if (await findToken(ctx, serial)) reasons.push(`a token with the serial ${serial} exists already`);
      else {
        await writeToken(ctx, o.token, realms);
        reasons.push(undefined);
      }
    } catch (e) {
      ctx.log.error({ err: e, serial }, 'token import failed');
      reasons.push(`could not be stored: ${(e as Error).message}`);
    }
  }
  return reasons;
}

/**
 * POST /token/load and `authsrv token import`: checks the right, parses the file and creates one
 * hardware token per entry (description `imported` unless the file gives one). Existing serials
 * are not overwritten: they count as not imported. Each token is stored whole or not at all; the
 * tokens are written IMPORT_BATCH at a time (see importBatch), which stays invisible in the result.
 */
export async function importTokens(ctx: Context, req: ImportRequest): Promise<ImportResult> {
  const realms = (req.tokenrealms ?? []).map((r) => r.trim().toLowerCase()).filter(Boolean);
  await checkImportRight(ctx, realms);
  for (const r of realms) {
    if (!(await realmExists(ctx, r))) throw new ParameterError(`The realm '${r}' does not exist.`);
  }
  const parsed = parseTokenFile(req);
  const settings = await typeSettings(ctx);
  const result: ImportResult = {
    n_imported: 0,
    n_not_imported: 0,
    imported: [],
    notImported: [...parsed.rejected],
  };
  const seen = new Set<string>();
  const total = parsed.tokens.length;
  let done = 0;
  for (const tokens of chunked(parsed.tokens, IMPORT_BATCH)) {
    const reasons = await importBatch(ctx, tokens, realms, settings, seen);
    for (const [i, t] of tokens.entries()) {
      const reason = reasons[i];
      if (reason) result.notImported.push({ serial: t.serial, source: t.source, reason });
      else result.imported.push(t.serial);
      req.onProgress?.(++done, total);
    }
  }
  for (const r of result.notImported) {
    ctx.log.info({ serial: r.serial, source: r.source, reason: r.reason }, 'token not imported');
  }
  if (result.notImported.length > 0) {
    ctx.log.warn(
      {
        type: req.type,
        count: result.notImported.length,
        first: result.notImported.slice(0, 10).map((r) => `${r.serial ?? '-'} (${r.source}): ${r.reason}`),
      },
      'token import: some tokens were not imported',
    );
  }
  result.n_imported = result.imported.length;
  result.n_not_imported = result.notImported.length;
  if (result.n_imported >= ANALYZE_AFTER) await refreshPlannerStatistics(ctx);
  return result;
}

/** Imports of at least this many tokens refresh the database's statistics of the token tables. */
export const ANALYZE_AFTER = 1000;

/**
 * A large import can change the token tables by orders of magnitude at once; until autovacuum
 * (PostgreSQL) or the next automatic recalculation (MariaDB) notices, the query planner works with
 * the old sizes, and on PostgreSQL reads every tokeninfo row for a page of 15 tokens (measured:
 * 50 ms instead of 0.1 ms). SQLite plans from its indexes without statistics.
 */
async function refreshPlannerStatistics(ctx: Context): Promise<void> {
  const tables = 'token, tokeninfo, tokenrealm, tokenowner';
  try {
    if (ctx.store.dialect === 'postgres') await sql.raw(`ANALYZE ${tables}`).execute(ctx.store.db);
    if (ctx.store.dialect === 'mysql') await sql.raw(`ANALYZE TABLE ${tables}`).execute(ctx.store.db);
  } catch (e) {
    ctx.log.warn({ err: e }, 'token import: the statistics of the token tables could not be refreshed');
  }
}
