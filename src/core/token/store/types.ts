// What the store's files share: a token as the services see it, and the handle a read or write
// runs on (the runtime's database, or the transaction of a caller that runs inside one).
import type { Selectable, Transaction } from 'kysely';
import type { Database, TokenTable } from '../../../store/index.ts';
import type { TokenType } from '../../../tokens/index.ts';
import type { Runtime } from '../../context.ts';

export type TokenRow = Selectable<TokenTable>;

export type Executor = Runtime['store']['db'] | Transaction<Database>;

export interface TokenOwner {
  resolver: string;
  userId: string;
  realm: string;
}

/** A token with everything the services need about it. */
export interface LoadedToken {
  row: TokenRow;
  type: TokenType;
  /** Tokeninfo values (sealed ones opened). */
  info: Record<string, string>;
  /** The keys of the tokeninfo values stored sealed (type `password`): shown only censored. */
  sealedInfo?: readonly string[];
  owner: TokenOwner | undefined;
  realms: string[];
}
