// The steps of `authsrv setup`, a new installation's first hour: a realm on a passwd-style file or
// an LDAP directory (tested live before anything is stored), an admin policy, a TOTP token for the
// operator, a test login, and the lines that point FreeRADIUS and PAM at this server. Each step is
// one call of the service that owns it, so the rules are the ones the API applies.
import { ParameterError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { setPolicy } from '../policy/index.ts';
import { setRealm } from '../realm/index.ts';
import { saveResolver, testResolver } from '../resolver/index.ts';
import { initToken } from '../token/index.ts';
import { type CheckResult, check } from '../validate/index.ts';

export type UserSource =
  | { kind: 'passwd'; file: string }
  | { kind: 'ldap'; uri: string; base: string; binddn?: string; bindpw?: string; loginattr?: string };

/** The resolver settings of a source, in the names the resolver API takes. */
export function resolverParams(source: UserSource): Record<string, string> {
  if (source.kind === 'passwd') return { type: 'passwdresolver', Filename: source.file };
  return {
    type: 'ldapresolver',
    LDAPURI: source.uri,
    LDAPBASE: source.base,
    LOGINNAMEATTRIBUTE: source.loginattr || 'uid',
    ...(source.binddn ? { BINDDN: source.binddn, BINDPW: source.bindpw ?? '' } : {}),
  };
}

/** The live test of a source (the file read, the directory bound and searched); throws when it fails. */
export async function checkUserSource(ctx: Context, source: UserSource): Promise<string> {
  const result = await testResolver(ctx, resolverParams(source));
  if (!result.value) throw new ParameterError(`The user store does not work: ${result.description}`);
  return result.description;
}

/** Stores the resolver and the realm on it (the first realm becomes the default realm). */
export async function createRealm(
  ctx: Context,
  realm: string,
  resolver: string,
  source: UserSource,
): Promise<void> {
  await saveResolver(ctx, resolver, resolverParams(source));
  const { failed } = await setRealm(ctx, realm, [resolver], {});
  if (failed.length)
    throw new ParameterError(`The realm ${realm} could not use the resolver ${failed.join(', ')}`);
}

/**
 * An admin policy giving `admin` every right. Once any admin policy exists, administrators have
 * only the rights policies give them: the next administrator starts with none, and is given what
 * they need by a policy of their own.
 */
export function createAdminPolicy(ctx: Context, name: string, admin: string): Promise<number> {
  return setPolicy(ctx, name, {
    scope: 'admin',
    action: { '*': true },
    adminuser: [admin],
    description: `Every right for ${admin} (authsrv setup)`,
  });
}

export interface OperatorToken {
  serial: string;
  otpauthUri: string;
}

/** A TOTP token for the operator's own user; `otpkey` (hex) when a script brings the seed. */
export async function enrollOperatorToken(
  ctx: Context,
  o: { user: string; realm: string; pin?: string; otpkey?: string },
): Promise<OperatorToken> {
  const params: Record<string, string> = {
    type: 'totp',
    user: o.user,
    realm: o.realm,
    description: 'authsrv setup',
  };
  if (o.otpkey) params.otpkey = o.otpkey;
  else params.genkey = '1';
  if (o.pin) params.pin = o.pin;
  const r = await initToken(ctx, params);
  const uri = (r.detail.googleurl as { value?: unknown } | undefined)?.value;
  if (typeof uri !== 'string') throw new ParameterError('The token was enrolled without an otpauth URI');
  return { serial: r.serial, otpauthUri: uri };
}

/** A login as /validate/check makes it (PIN followed by the OTP value). */
export function testLogin(
  ctx: Context,
  o: { user: string; realm: string; pass: string },
): Promise<CheckResult> {
  return check(ctx, { user: o.user, realm: o.realm, pass: o.pass, client: '' });
}

/** What to paste into privacyIDEA's FreeRADIUS plugin and PAM module, which work unchanged. */
export function clientSnippets(url: string, realm: string): { freeradius: string; pam: string } {
  const base = url.replace(/\/+$/, '');
  return {
    freeradius: [
      '# /etc/privacyidea/rlm_perl.ini (privacyIDEA FreeRADIUS plugin, privacyidea_radius.pm)',
      '[Default]',
      `URL = ${base}/validate/check`,
      `REALM = ${realm}`,
      `SSL_CHECK = ${base.startsWith('https:') ? 'true' : 'false'}`,
      'TIMEOUT = 10',
    ].join('\n'),
    pam: [
      '# /etc/pam.d/sshd (privacyIDEA PAM module), below @include common-auth: password, then OTP',
      `auth requisite pam_python.so /lib/security/privacyidea_pam.py url=${base} realm=${realm}`,
    ].join('\n'),
  };
}
