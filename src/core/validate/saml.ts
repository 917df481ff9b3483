// samlcheck's attributes (reference 4.2.4).
import type { Runtime } from '../context.ts';
import { configFlag } from '../system/index.ts';
import type { CheckResult } from './request.ts';

const SAML_KEYS = ['username', 'realm', 'resolver', 'email', 'surname', 'givenname', 'mobile', 'phone'];

/**
 * The user's store attributes — never a password or its hash — when ReturnSamlAttributes (default
 * true) and, after a failure, ReturnSamlAttributesOnFail.
 */
export async function samlAttributes(rt: Runtime, res: CheckResult): Promise<Record<string, unknown>> {
  const user = res.user;
  if (!user || !(await configFlag(rt, 'ReturnSamlAttributes', true))) return {};
  if (!res.value && !(await configFlag(rt, 'ReturnSamlAttributesOnFail', false))) return {};
  const out: Record<string, unknown> = Object.fromEntries(SAML_KEYS.map((k) => [k, null]));
  for (const [k, v] of Object.entries(user.info)) {
    if (!/pass|hash/i.test(k)) out[k] = v ?? null;
  }
  return Object.assign(out, { username: user.login, realm: user.realm, resolver: user.resolver });
}
