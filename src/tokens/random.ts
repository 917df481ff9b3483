// The randomness a token type draws from: the runtime's (src/core/context.ts `Random`), handed in
// with the request so that tests can pin it; node:crypto's where a type is used without a runtime.
import { randomBytes, randomInt } from 'node:crypto';

export interface TypeRandom {
  bytes(size: number): Buffer;
  /** A whole number in [min, max), or in [0, min) when max is not given (node:crypto's randomInt). */
  int(min: number, max?: number): number;
}

const cryptoRandom: TypeRandom = {
  bytes: (size) => randomBytes(size),
  int: (min, max) => (max === undefined ? randomInt(min) : randomInt(min, max)),
};

/** The randomness a request carries, else node:crypto's. */
export function randomOf(random: TypeRandom | undefined): TypeRandom {
  return random ?? cryptoRandom;
}
