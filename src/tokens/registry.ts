// The token types, in one table: adding a type is adding its file and one line here. What a type
// contributes to the policy definitions it declares itself (src/policy/definitions.ts reads it);
// nothing is registered as a side effect of loading this module.
import { ERR, TokenAdminError } from '../errors.ts';
import { ApplspecType } from './applspec.ts';
import { CertificateType } from './certificate.ts';
import { DaypasswordType } from './daypassword.ts';
import { EmailType } from './email.ts';
import { FourEyesType } from './four-eyes.ts';
import { HotpType } from './hotp.ts';
import { IndexedSecretType } from './indexedsecret.ts';
import { MotpType } from './motp.ts';
import { PaperType } from './paper.ts';
import { PwType, RegistrationType } from './password-type.ts';
import { QuestionType } from './question.ts';
import { RadiusType } from './radius.ts';
import { SmsType } from './sms.ts';
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
  new EmailType(),
  new SmsType(),
  new RadiusType(),
  new CertificateType(),
];

/** privacyIDEA's aliases: `hmac` is hotp. */
const ALIASES: Readonly<Record<string, string>> = { hmac: 'hotp' };

/** The type /token/init enrolls when the request names none (privacyIDEA's). */
const DEFAULT_TYPE = 'hotp';

/**
 * The type of the temporary token that replaces a lost one (/token/lost): a static password,
 * whose secret is the UTF-8 of the password and whose otplen is its length.
 */
const LOST_TOKEN_TYPE = 'pw';

/** The lookups of a list of token types; the module's functions are those of the table above. */
export function registryOf(types: readonly TokenType[]) {
  const byName = new Map(types.map((t) => [t.type, t]));
  for (const [alias, name] of Object.entries(ALIASES)) {
    const t = byName.get(name);
    if (t) byName.set(alias, t);
  }
  /** The type of a name (case-insensitive), or undefined. */
  const findTokenType = (name: string): TokenType | undefined => byName.get(name.toLowerCase());
  const required = (name: string): TokenType => {
    const t = byName.get(name);
    if (!t) throw new Error(`the token type ${name} is not registered`);
    return t;
  };
  return {
    tokenTypes: (): readonly TokenType[] => types,
    findTokenType,
    /** The type of a name; unknown → ERR1610 as privacyIDEA answers an unknown type on init. */
    tokenType(name: string): TokenType {
      const t = findTokenType(name);
      if (!t) throw new TokenAdminError(`Unknown token type '${name}'`, ERR.UnknownTokenType);
      return t;
    },
    defaultTokenType: (): TokenType => required(DEFAULT_TYPE),
    lostTokenType: (): TokenType => required(LOST_TOKEN_TYPE),
  };
}

export const { tokenTypes, findTokenType, tokenType, defaultTokenType, lostTokenType } = registryOf(TYPES);
