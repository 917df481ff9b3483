// The luks application (privacyidea/lib/applications/luks.py; reference 6.4): a YubiKey whose
// challenge-response slot holds the seed of a TOTP token (serial `UBOM…`, as privacyIDEA enrolls
// YubiKeys) unlocks a LUKS partition at boot. authsrv hands the boot script a challenge and the
// YubiKey's expected answer, the untruncated HMAC of it, which the script stores in a key slot.
import { randomBytes } from 'node:crypto';
import { ParameterError } from '../errors.ts';
import type { AttachedToken, ItemFilter, MachineApplication } from './application.ts';

/** The LUKS key slot written when the attachment names none. */
export const DEFAULT_LUKS_SLOT = 1;

/** A YubiKey HMAC challenge is at most 64 bytes; the random one is 32. */
const MAX_CHALLENGE_BYTES = 64;
const RANDOM_CHALLENGE_BYTES = 32;

/** The serials privacyIDEA gives YubiKeys in OATH mode: only those are challenge-response keys. */
const YUBIKEY_SERIAL = /^UBOM/;

/** The slot as text (options are text, as privacyIDEA hands them out), or the default. */
function slotOf(value: string | undefined): string {
  if (value === undefined || value === '') return String(DEFAULT_LUKS_SLOT);
  if (!/^[0-7]$/.test(value.trim()))
    throw new ParameterError('The option slot must be a LUKS key slot from 0 to 7.');
  return value.trim();
}

/** The challenge the request gives (hex), or 32 random bytes. */
function challengeOf(given: string | undefined): Buffer {
  if (given === undefined || given === '') return randomBytes(RANDOM_CHALLENGE_BYTES);
  const hex = given.trim();
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex) || hex.length > 2 * MAX_CHALLENGE_BYTES) {
    throw new ParameterError(`The challenge must be hexadecimal, 1 to ${MAX_CHALLENGE_BYTES} bytes.`);
  }
  return Buffer.from(hex, 'hex');
}

export const luksApplication: MachineApplication = {
  name: 'luks',
  tokenTypes: ['totp'],
  machineOptional: false,
  options: {
    totp: {
      slot: {
        type: 'int',
        description: `The LUKS key slot the response unlocks (default ${DEFAULT_LUKS_SLOT}).`,
        value: ['0', '1', '2', '3', '4', '5', '6', '7'],
      },
      partition: { type: 'str', description: 'The LUKS partition, e.g. /dev/sda5.' },
    },
  },

  lookup() {
    return {};
  },

  /**
   * An active YubiKey TOTP token's answer to the request's challenge (or a random one): the
   * challenge and the HMAC in hex, with the slot and, when set, the partition.
   */
  authItem(token: AttachedToken, filter: ItemFilter) {
    if (token.type !== 'totp' || !token.active || !YUBIKEY_SERIAL.test(token.serial)) return undefined;
    const challenge = challengeOf(filter.challenge);
    const response = token.hmacResponse(challenge);
    if (!response) return undefined;
    return {
      ...token.options,
      slot: slotOf(token.options.slot),
      challenge: challenge.toString('hex'),
      response: response.toString('hex'),
    };
  },

  checkOption(name: string, value: string) {
    if (name === 'slot') slotOf(value);
  },
};
