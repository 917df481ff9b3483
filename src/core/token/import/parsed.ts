// A token file as the parsers read it: the tokens found, and the entries not imported with why.
import { TokenAdminError } from '../../../errors.ts';
import type { TokenFileEntry } from '../../../tokens/index.ts';

export type ValidateMac = 'no_check' | 'check_fail_soft' | 'check_fail_hard';

/** One token found in a file; its type reads the hashlib, time step, drift and counter. */
export interface ParsedToken extends TokenFileEntry {
  serial: string;
  type: string;
  /** The seed, hex. */
  otpkey: string;
  otplen?: number | undefined;
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

export function fileError(kind: string, reason: string): TokenAdminError {
  return new TokenAdminError(`Could not import the ${kind} file: ${reason}`);
}
