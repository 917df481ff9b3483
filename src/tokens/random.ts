// The randomness a token type draws from: the runtime's (src/crypto/random.ts), handed in with the
// request so that tests can pin it; node:crypto's where a type is used without a runtime.
import { cryptoRandom, type Random } from '../crypto/index.ts';

export type TypeRandom = Pick<Random, 'bytes' | 'int'>;

/** The randomness a request carries, else node:crypto's. */
export function randomOf(random: TypeRandom | undefined): TypeRandom {
  return random ?? cryptoRandom;
}
