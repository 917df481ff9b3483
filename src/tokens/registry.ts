// The token types, in one table: adding a type is adding its file and one line here. Registering
// also declares each type's `enroll<TYPE>` rights in the admin (and, if users may enroll it, user)
// policy scope.
import { ERR, TokenAdminError } from '../errors.ts';
import { registerDynamicActions } from '../policy/index.ts';
import { ApplspecType } from './applspec.ts';
import { DaypasswordType } from './daypassword.ts';
import { FourEyesType } from './four-eyes.ts';
import { HotpType } from './hotp.ts';
import { IndexedSecretType } from './indexedsecret.ts';
import { MotpType } from './motp.ts';
import { PaperType } from './paper.ts';
import { PwType, RegistrationType } from './password-type.ts';
import { QuestionType } from './question.ts';
import { SpassType } from './spass.ts';
import { SshkeyType } from './sshkey.ts';
import { TanType } from './tan.ts';
import type { TokenType } from './token-type.ts';
import { TotpType } from './totp.ts';
import { YubikeyType } from './yubikey.ts';

const TYPES: readonly TokenType[] = [
  new HotpType(),
  new TotpType(),
  new SpassType(),
  new PwType(),
  new RegistrationType(),
  new ApplspecType(),
  new DaypasswordType(),
  new MotpType(),
  new SshkeyType(),
  new QuestionType(),
  new PaperType(),
  new YubikeyType(),
  new TanType(),
  new IndexedSecretType(),
  new FourEyesType(),
];

const BY_NAME = new Map(TYPES.map((t) => [t.type, t]));
/** privacyIDEA's alias: `hmac` is hotp. */
BY_NAME.set('hmac', BY_NAME.get('hotp')!);

for (const t of TYPES) {
  const action = {
    type: 'bool',
    description: `Enroll ${t.description}`,
    group: 'enrollment',
    mainmenu: ['tokens'],
  } as const;
  registerDynamicActions('admin', { [t.enrollAction]: action });
  if (t.userEnrollable) registerDynamicActions('user', { [t.enrollAction]: action });
}

export function tokenTypes(): readonly TokenType[] {
  return TYPES;
}

/** The type of a name (case-insensitive), or undefined. */
export function findTokenType(name: string): TokenType | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/** The type of a name; unknown → ERR1610 as privacyIDEA answers an unknown type on init. */
export function tokenType(name: string): TokenType {
  const t = findTokenType(name);
  if (!t) throw new TokenAdminError(`Unknown token type '${name}'`, ERR.UnknownTokenType);
  return t;
}
