// Randomness as services and token types draw it (serials, PINs, passwords, seeds, transaction
// ids, nonces): node:crypto's by default; the Runtime carries one, replaced in tests like the clock
// to pin what is drawn.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';

export interface Random {
  bytes(size: number): Buffer;
  /** A whole number in [min, max), or in [0, min) when max is not given (node:crypto's randomInt). */
  int(min: number, max?: number): number;
  uuid(): string;
}

export const cryptoRandom: Random = {
  bytes: (size) => randomBytes(size),
  int: (min, max) => (max === undefined ? randomInt(min) : randomInt(min, max)),
  uuid: () => randomUUID(),
};
