// `authsrv setup`: the guided first hour. Asks for what it needs on the terminal (every answer is
// also a flag, for scripts), and takes the steps of core/setup one by one, each with its audit row:
// a realm on a passwd-style file or LDAP (tested live first), an admin policy, a TOTP token for
// the operator with its QR code, a test login, and the lines for FreeRADIUS and PAM.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { auditedCliAction } from '../../core/audit/index.ts';
import type { Context } from '../../core/context.ts';
import {
  checkUserSource,
  clientSnippets,
  createAdminPolicy,
  createRealm,
  enrollOperatorToken,
  testLogin,
  type UserSource,
} from '../../core/setup/index.ts';
import { answerOf, checkAuditColumns } from '../../core/validate/index.ts';
import { configFrom, readStdinLine, withContext } from '../common.ts';
import { terminalQr } from '../qr.ts';
import { serverUrl } from '../serving-file.ts';
import { Answers } from '../setup-prompts.ts';

interface SetupOptions {
  realm?: string;
  passwdFile?: string;
  ldapUri?: string;
  ldapBase?: string;
  ldapBinddn?: string;
  ldapBindpwFile?: string;
  ldapLoginattr?: string;
  admin: string;
  adminPolicy: string | false;
  user?: string;
  otpkey?: string;
  pinFile?: string;
  token: boolean;
  testPassStdin?: boolean;
  test: boolean;
  url?: string;
  nonInteractive?: boolean;
}

export function setupCommand(): Command {
  return new Command('setup')
    .description('guided first setup: a realm, an admin policy, your TOTP token, a test login, client lines')
    .option('--realm <name>', 'name of the first realm (default: corp)')
    .option('--passwd-file <file>', 'users from a passwd-style file (e.g. /etc/passwd)')
    .option('--ldap-uri <uri>', 'users from an LDAP directory at this URI (ldap:// or ldaps://)')
    .option('--ldap-base <dn>', 'the base DN of the users')
    .option('--ldap-binddn <dn>', 'the DN to bind as (default: anonymous)')
    .option('--ldap-bindpw-file <file>', 'a file holding the bind password')
    .option('--ldap-loginattr <attribute>', 'the login attribute (default: uid)')
    .option('--admin <name>', 'the administrator the admin policy is for', 'admin')
    .option('--admin-policy <name>', 'name of the admin policy giving --admin every right', 'setup-admin')
    .option('--no-admin-policy', 'create no admin policy')
    .option('--user <login>', 'your login in the realm, for your TOTP token (default: $SUDO_USER or $USER)')
    .option('--otpkey <hex>', 'the seed of your token (default: generated)')
    .option('--pin-file <file>', 'a file holding the PIN of your token (default: asked, or none)')
    .option('--no-token', 'enroll no token (and make no test login)')
    .option('--test-pass-stdin', 'the test login: PIN and current OTP value on standard input')
    .option('--no-test', 'make no test login')
    .option(
      '--url <url>',
      'the URL clients reach this server at (default: the running server or http.host:port)',
    )
    .option('--non-interactive', 'never ask: a missing answer is an error naming its flag')
    .action(async (o: SetupOptions, cmd: Command) => {
      const answers = new Answers(process.stdin.isTTY === true && !o.nonInteractive && !o.testPassStdin);
      const url = o.url ?? serverUrl(configFrom(cmd));
      const ok = await withContext(cmd, (ctx) => runSetup(ctx, o, answers, url));
      if (!ok) process.exitCode = 1;
    });
}

/** All steps; false when the test login was refused. */
async function runSetup(ctx: Context, o: SetupOptions, ask: Answers, url: string): Promise<boolean> {
  const source = await userSource(o, ask);
  console.log(`✓ The user store works: ${await checkUserSource(ctx, source)}`);
  const realm = await ask.text({
    message: 'Name of the first realm',
    flag: '--realm',
    given: o.realm,
    default: 'corp',
  });
  const resolver = `${realm}-users`;
  await audited(ctx, 'setup realm', `realm ${realm} on resolver ${resolver}`, { realm, resolver }, () =>
    createRealm(ctx, realm, resolver, source),
  );
  console.log(`✓ Realm ${realm} (resolver ${resolver})`);
  if (o.adminPolicy !== false) {
    const name = o.adminPolicy;
    await audited(ctx, 'setup policy', `admin policy ${name} for ${o.admin}`, {}, () =>
      createAdminPolicy(ctx, name, o.admin),
    );
    console.log(`✓ Admin policy ${name}: every right for the administrator ${o.admin}`);
  }
  let ok = true;
  if (o.token) ok = await tokenAndLogin(ctx, o, ask, realm);
  printSnippets(url, realm);
  return ok;
}

async function userSource(o: SetupOptions, ask: Answers): Promise<UserSource> {
  const given = o.passwdFile !== undefined ? 'passwd' : o.ldapUri !== undefined ? 'ldap' : undefined;
  const kind = await ask.choice<'passwd' | 'ldap'>({
    message: 'Where are your users',
    flag: '--passwd-file FILE or --ldap-uri URI',
    given,
    choices: [
      { value: 'passwd', name: 'a passwd-style file (/etc/passwd or a copy)' },
      { value: 'ldap', name: 'an LDAP directory (OpenLDAP, Active Directory …)' },
    ],
  });
  if (kind === 'passwd') {
    const file = await ask.text({
      message: 'The passwd file',
      flag: '--passwd-file',
      given: o.passwdFile,
      default: '/etc/passwd',
    });
    // Stored absolute: the server may run from another directory than this command.
    return { kind, file: resolve(file) };
  }
  const uri = await ask.text({ message: 'LDAP URI', flag: '--ldap-uri', given: o.ldapUri });
  const base = await ask.text({ message: 'Base DN of the users', flag: '--ldap-base', given: o.ldapBase });
  const binddn = await ask.text({
    message: 'Bind DN (empty: anonymous)',
    flag: '--ldap-binddn',
    given: o.ldapBinddn,
    default: '',
  });
  const bindpw = binddn
    ? await ask.secret({
        message: 'Bind password',
        flag: '--ldap-bindpw-file',
        given: fileText(o.ldapBindpwFile),
      })
    : '';
  const loginattr = await ask.text({
    message: 'Login attribute',
    flag: '--ldap-loginattr',
    given: o.ldapLoginattr,
    default: 'uid',
  });
  return { kind, uri, base, binddn, bindpw, loginattr };
}

/** The operator's token with its QR code, then the test login; false when the login was refused. */
async function tokenAndLogin(ctx: Context, o: SetupOptions, ask: Answers, realm: string): Promise<boolean> {
  const me = process.env.SUDO_USER || process.env.USER || undefined;
  const user = await ask.text({
    message: `Your login in ${realm}`,
    flag: '--user',
    given: o.user,
    ...(me ? { default: me } : {}),
  });
  const pin = await ask.secret({
    message: 'A PIN for your token (empty: none)',
    flag: '--pin-file',
    given: fileText(o.pinFile),
  });
  const t = await audited(
    ctx,
    'setup token',
    `totp token for ${user}@${realm}`,
    { user, realm, token_type: 'totp' },
    () => enrollOperatorToken(ctx, { user, realm, pin, ...(o.otpkey ? { otpkey: o.otpkey } : {}) }),
  );
  console.log(`✓ TOTP token ${t.serial} for ${user}@${realm}. Scan it with your authenticator app:`);
  console.log(terminalQr(t.otpauthUri, process.stdout.isTTY === true && !process.env.NO_COLOR));
  console.log(`otpauth URI: ${t.otpauthUri}`);
  if (!o.test) return true;
  const pass = o.testPassStdin
    ? await readStdinLine()
    : ask.interactive
      ? await ask.secret({
          message: 'Test login: your PIN followed by the code the app shows',
          flag: '--test-pass-stdin',
        })
      : undefined;
  if (pass === undefined) {
    console.log('Test login skipped (give the PIN and code on standard input with --test-pass-stdin).');
    return true;
  }
  return loginLine(ctx, user, realm, pass);
}

async function loginLine(ctx: Context, user: string, realm: string, pass: string): Promise<boolean> {
  const res = await auditedCliAction(
    ctx,
    { command: 'setup test login', detail: '', fields: { user, realm } },
    () => testLogin(ctx, { user, realm, pass }),
    checkAuditColumns,
  );
  const message = typeof res.detail?.message === 'string' ? `: ${res.detail.message}` : '';
  console.log(
    res.value ? `✓ Test login of ${user}@${realm} accepted` : `✗ Test login ${answerOf(res)}${message}`,
  );
  return res.value === true;
}

function audited<T>(
  ctx: Context,
  command: string,
  detail: string,
  fields: Record<string, string>,
  run: () => Promise<T>,
): Promise<T> {
  return auditedCliAction(ctx, { command, detail, fields }, run);
}

function fileText(file: string | undefined): string | undefined {
  return file === undefined ? undefined : readFileSync(file, 'utf8').replace(/\r?\n$/, '');
}

function printSnippets(url: string, realm: string): void {
  const s = clientSnippets(url, realm);
  console.log("\nFreeRADIUS, with privacyIDEA's plugin (it works unchanged against authsrv):\n");
  console.log(s.freeradius);
  console.log("\nPAM, with privacyIDEA's PAM module:\n");
  console.log(s.pam);
}
