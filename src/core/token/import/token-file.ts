// Reading a token file of one of the types privacyIDEA knows (POST /token/load): the checks of the
// request, then the parser of its type.
import { ParameterError, TokenAdminError } from '../../../errors.ts';
import { parseAladdinXml } from './aladdin-xml.ts';
import { parseOathCsv } from './oathcsv.ts';
import { fileError, type ParsedFile } from './parsed.ts';
import { parsePskc } from './pskc.ts';
import { parseYubikeyCsv } from './yubikeycsv.ts';

/** The file types privacyIDEA knows, with their aliases, in its order (for the error message). */
export const KNOWN_FILE_TYPES = ['aladdin-xml', 'oathcsv', 'OATH CSV', 'yubikeycsv', 'Yubikey CSV', 'pskc'];

export type FileKind = 'aladdin-xml' | 'oathcsv' | 'yubikeycsv' | 'pskc';

export const KIND_OF: Record<string, FileKind> = {
  'aladdin-xml': 'aladdin-xml',
  oathcsv: 'oathcsv',
  'OATH CSV': 'oathcsv',
  yubikeycsv: 'yubikeycsv',
  'Yubikey CSV': 'yubikeycsv',
  pskc: 'pskc',
};

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

/** Reads a file into tokens: the checks of the request and the parser of its type. */
export async function parseTokenFile(req: ImportRequest): Promise<ParsedFile> {
  if (req.content.trim() === '') throw new ParameterError('Error loading token file. File empty!');
  // Own entries only: a type named like an Object.prototype member (`constructor`) is unknown too.
  const kind = Object.hasOwn(KIND_OF, req.type) ? KIND_OF[req.type] : undefined;
  if (!kind) {
    throw new TokenAdminError(
      `Unknown file type: '${req.type}'. Supported file types are: ${KNOWN_FILE_TYPES.join(', ')}`,
    );
  }
  // importTokens decrypts a PGP message first; a message inside it is not decrypted again.
  if (req.content.startsWith('-----BEGIN PGP MESSAGE-----')) {
    throw fileError(kind, 'the decrypted file is PGP-encrypted once more; decrypt it first');
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
