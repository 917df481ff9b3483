import { Command } from 'commander';
import {
  assignToken,
  deleteTokens,
  enableTokens,
  initToken,
  listTokens,
  requireToken,
  resetTokens,
  resyncToken,
  revokeTokens,
  serialByOtp,
  setPins,
  type TokenView,
  tokenView,
  unassignTokens,
} from '../../core/token/index.ts';
import { ParameterError, TokenAdminError } from '../../errors.ts';
import { audited, printJson, printTable, readNewPassword, readStdinLine, withContext } from '../common.ts';
import { tokenGroupCommand } from './token-group.ts';
import { tokenImportCommand } from './token-import.ts';

const text = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));

function ownerCell(t: TokenView): string {
  if (!t.username && !t.user_realm) return '';
  return `${text(t.username)}@${text(t.user_realm)}`;
}

/** One `key: value` line per field; the tokeninfo as `info.KEY` lines. */
function printToken(t: TokenView): void {
  const lines: [string, string][] = [];
  for (const [key, value] of Object.entries(t)) {
    if (key === 'info') {
      for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>))
        lines.push([`info.${k}`, text(v)]);
    } else if (typeof value === 'boolean') lines.push([key, value ? 'yes' : 'no']);
    else lines.push([key, text(value)]);
  }
  const width = Math.max(...lines.map(([k]) => k.length));
  for (const [k, v] of lines) console.log(`${`${k}:`.padEnd(width + 1)} ${v}`.trimEnd());
}

/** The enrollment detail without QR images (PNG data URIs are no use on a terminal). */
function withoutImages(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutImages);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => k !== 'img')
      .map(([k, v]) => [k, withoutImages(v)]),
  );
}

/** A PIN: the first line of stdin with --pin-stdin, else a hidden prompt on a terminal. */
async function readPin(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdinLine();
  if (!process.stdin.isTTY)
    throw new ParameterError('No terminal to ask for the PIN: pipe it in with --pin-stdin');
  return readNewPassword(false);
}

interface InitOptions {
  type: string;
  serial?: string;
  user?: string;
  realm?: string;
  otpkey?: string;
  genkey?: boolean;
  otplen?: string;
  hashlib?: string;
  pinStdin?: boolean;
  description?: string;
  json?: boolean;
}

/** The /token/init parameters of the options (the PIN is read separately, never from argv). */
function initParams(o: InitOptions, pin: string | undefined): Record<string, string> {
  if (o.otpkey !== undefined && o.genkey) throw new ParameterError('Give --otpkey or --genkey, not both');
  const p: Record<string, string> = { type: o.type };
  if (o.serial !== undefined) p.serial = o.serial;
  if (o.user !== undefined) p.user = o.user;
  if (o.realm !== undefined) p.realm = o.realm;
  if (o.otpkey !== undefined) p.otpkey = o.otpkey;
  if (o.genkey) p.genkey = '1';
  if (o.otplen !== undefined) p.otplen = o.otplen;
  if (o.hashlib !== undefined) p.hashlib = o.hashlib;
  if (o.description !== undefined) p.description = o.description;
  if (pin !== undefined) p.pin = pin;
  return p;
}

/** What the audit row's info records of an init: the options, never the key or PIN. */
function initDetail(o: InitOptions): string {
  const words = [`--type ${o.type}`];
  if (o.serial) words.push(`--serial ${o.serial}`);
  if (o.user) words.push(`--user ${o.user}`);
  if (o.realm) words.push(`--realm ${o.realm}`);
  if (o.otpkey !== undefined) words.push('--otpkey ***');
  if (o.genkey) words.push('--genkey');
  if (o.pinStdin) words.push('--pin-stdin');
  return words.join(' ');
}

interface GetSerialOptions {
  type?: string;
  serial?: string;
  assigned?: boolean;
  unassigned?: boolean;
  window?: string;
  count?: boolean;
  json?: boolean;
}

/** What the audit row's info records of a getserial: the options, not the OTP value. */
function getSerialDetail(o: GetSerialOptions): string {
  const words: string[] = [];
  if (o.type) words.push(`--type ${o.type}`);
  if (o.serial) words.push(`--serial ${o.serial}`);
  if (o.assigned) words.push('--assigned');
  if (o.unassigned) words.push('--unassigned');
  if (o.window !== undefined) words.push(`--window ${o.window}`);
  if (o.count) words.push('--count');
  return words.join(' ');
}

export function tokenCommand(): Command {
  const token = new Command('token').description('tokens: enroll, list, assign and manage their lifecycle');
  token
    .command('list')
    .description('list tokens')
    .option('--user <user>', 'only tokens of this user (USER or USER@REALM)')
    .option('--realm <realm>', "the user's realm, or without --user: only tokens of owners in this realm")
    .option('--serial <serial>', 'only this serial (* wildcards, or a comma-separated list)')
    .option('--type <type>', 'only tokens of this type (* wildcards)')
    .option('--type-list <types>', 'only tokens of these types (comma-separated)')
    .option('--tokenrealm <realm>', 'only tokens in this realm')
    .option('--userid <id>', 'only tokens whose owner has this user id (* wildcards)')
    .option('--resolver <resolver>', 'only tokens whose owner is in this resolver (* wildcards)')
    .option('--infokey <key>', 'with --infovalue: only tokens with this tokeninfo value')
    .option('--infovalue <value>', 'the exact value of the tokeninfo key --infokey')
    .option('--description <text>', 'only tokens with this description (* wildcards)')
    .option('--rollout-state <state>', 'only tokens in this rollout state (* wildcards)')
    .option('--json', 'print JSON')
    .action(
      async (
        o: {
          user?: string;
          realm?: string;
          serial?: string;
          type?: string;
          typeList?: string;
          tokenrealm?: string;
          userid?: string;
          resolver?: string;
          infokey?: string;
          infovalue?: string;
          description?: string;
          rolloutState?: string;
          json?: boolean;
        },
        cmd,
      ) => {
        const result = await withContext(cmd, (ctx) =>
          listTokens(ctx, {
            user: o.user,
            realm: o.realm,
            serial: o.serial,
            type: o.type,
            type_list: o.typeList,
            tokenrealm: o.tokenrealm,
            userid: o.userid,
            resolver: o.resolver,
            infokey: o.infokey,
            infovalue: o.infovalue,
            description: o.description,
            rollout_state: o.rolloutState,
            pagesize: 10_000,
          }),
        );
        if (o.json) return printJson(result.tokens);
        printTable(
          ['Serial', 'Type', 'Active', 'Owner', 'Realms', 'Failcount', 'Description'],
          result.tokens.map((t) => [
            text(t.serial),
            text(t.tokentype),
            t.active ? 'yes' : 'no',
            ownerCell(t),
            text(t.realms),
            `${text(t.failcount)}/${text(t.maxfail)}`,
            text(t.description),
          ]),
        );
        if (result.count > result.tokens.length)
          process.stderr.write(`Showing ${result.tokens.length} of ${result.count} tokens.\n`);
      },
    );
  token
    .command('show <serial>')
    .description('show every field of one token')
    .option('--json', 'print JSON')
    .action(async (serial: string, o: { json?: boolean }, cmd: Command) => {
      const view = await withContext(cmd, async (ctx) => tokenView(ctx, await requireToken(ctx, serial)));
      if (o.json) return printJson(view);
      printToken(view);
    });
  token
    .command('init')
    .description('enroll a token (or re-key an existing one of the same type)')
    .requiredOption('--type <type>', 'hotp, totp, spass, pw, registration')
    .option('--serial <serial>', 'the serial (default: generated)')
    .option('--user <user>', 'the owner (USER or USER@REALM)')
    .option('--realm <realm>', "the owner's realm, or without --user the token's realm")
    .option('--otpkey <hex>', 'the seed in hex (pw: the password)')
    .option('--genkey', 'generate the seed (the default)')
    .option('--otplen <n>', 'OTP length, 6 or 8')
    .option('--hashlib <hashlib>', 'sha1, sha256 or sha512')
    .option('--pin-stdin', 'read the token PIN from standard input')
    .option('--description <text>', 'description')
    .option('--json', 'print JSON (without QR images)')
    .action(async (o: InitOptions, cmd: Command) => {
      const pin = o.pinStdin ? await readPin(true) : undefined;
      const params = initParams(o, pin);
      const { serial, detail } = await withContext(cmd, (ctx) =>
        audited(
          ctx,
          'token init',
          initDetail(o),
          () => initToken(ctx, params),
          {
            ...(o.user ? { user: o.user } : {}),
            ...(o.realm ? { realm: o.realm } : {}),
            token_type: o.type.toLowerCase(),
          },
          (r) => ({ serial: r.serial }),
        ),
      );
      if (o.json) return printJson(withoutImages(detail));
      console.log(`serial: ${serial}`);
      const url = (detail.googleurl as { value?: unknown } | undefined)?.value;
      if (typeof url === 'string') console.log(`otpauth URI: ${url}`);
      if (typeof detail.password === 'string') console.log(`password: ${detail.password}`);
      if (typeof detail.registrationcode === 'string')
        console.log(`registration code: ${detail.registrationcode}`);
    });
  token
    .command('assign <serial>')
    .description('give a token an owner')
    .requiredOption('--user <user>', 'the owner (USER or USER@REALM)')
    .option('--realm <realm>', "the owner's realm (default: the part after @, or the default realm)")
    .action(async (serial: string, o: { user: string; realm?: string }, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(
          ctx,
          'token assign',
          `${serial} ${o.user}`,
          () => assignToken(ctx, { serial, user: o.user, realm: o.realm }),
          { user: o.user, serial, ...(o.realm ? { realm: o.realm } : {}) },
        ),
      );
      console.log(`Token '${serial}' assigned to ${o.user}${o.realm ? `@${o.realm}` : ''}.`);
    });
  token
    .command('unassign <serial>')
    .description('remove the owner, the PIN and the fail count of a token')
    .action(async (serial: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(ctx, 'token unassign', serial, () => unassignTokens(ctx, { serial }), { serial }),
      );
      console.log(`Token '${serial}' unassigned.`);
    });
  for (const enable of [true, false]) {
    const verb = enable ? 'enable' : 'disable';
    token
      .command(`${verb} <serial>`)
      .description(`${verb} a token`)
      .action(async (serial: string, _o, cmd: Command) => {
        const changed = await withContext(cmd, (ctx) =>
          audited(ctx, `token ${verb}`, serial, () => enableTokens(ctx, { serial }, enable), { serial }),
        );
        console.log(changed > 0 ? `Token '${serial}' ${verb}d.` : `Token '${serial}' was already ${verb}d.`);
      });
  }
  for (const [verb, description, run, done] of [
    ['revoke', 'revoke a token: locked and inactive for good', revokeTokens, 'revoked.'],
    ['delete', 'delete a token', deleteTokens, 'deleted.'],
    ['reset', 'reset the fail counter of a token', resetTokens, 'fail counter reset.'],
  ] as const) {
    token
      .command(`${verb} <serial>`)
      .description(description)
      .action(async (serial: string, _o, cmd: Command) => {
        await withContext(cmd, (ctx) =>
          audited(ctx, `token ${verb}`, serial, () => run(ctx, { serial }), { serial }),
        );
        console.log(`Token '${serial}' ${done}`);
      });
  }
  token
    .command('resync <serial> <otp1> <otp2>')
    .description('resynchronize a HOTP or TOTP token with two consecutive OTP values')
    .action(async (serial: string, otp1: string, otp2: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(
          ctx,
          'token resync',
          serial,
          async () => {
            if (!(await resyncToken(ctx, { serial }, otp1, otp2)))
              throw new TokenAdminError(`Token '${serial}' could not be resynchronized with these values`);
          },
          { serial },
        ),
      );
      console.log(`Token '${serial}' resynchronized.`);
    });
  token
    .command('setpin <serial>')
    .description('set the PIN of a token (hidden prompt, or --pin-stdin for scripts)')
    .option('--pin-stdin', 'read the PIN from standard input')
    .action(async (serial: string, o: { pinStdin?: boolean }, cmd: Command) => {
      const pin = await readPin(o.pinStdin === true);
      await withContext(cmd, (ctx) =>
        audited(ctx, 'token setpin', serial, () => setPins(ctx, { serial }, pin), { serial }),
      );
      console.log(`PIN of token '${serial}' set.`);
    });
  token
    .command('getserial <otp>')
    .description('find the HOTP or TOTP token that produced an OTP value; the value is used up')
    .option('--type <type>', 'only tokens of this type (hotp, totp)')
    .option('--serial <text>', 'only tokens whose serial contains this text')
    .option('--assigned', 'only tokens with an owner')
    .option('--unassigned', 'only tokens without an owner')
    .option('--window <n>', 'HOTP: the next N counters; TOTP: N time steps either side of now (default 10)')
    .option('--count', 'only count the tokens that would be checked')
    .option('--json', 'print JSON ({serial, count})')
    .action(async (otp: string, o: GetSerialOptions, cmd: Command) => {
      if (o.window !== undefined && !/^\d{1,9}$/.test(o.window.trim()))
        throw new ParameterError(`'window' must be a positive integer, not '${o.window}'`);
      const query = {
        type: o.type,
        serial: o.serial,
        assigned: o.assigned === true,
        unassigned: o.unassigned === true,
        countOnly: o.count === true,
        ...(o.window !== undefined ? { window: Number(o.window) } : {}),
      };
      const result = await withContext(cmd, (ctx) =>
        audited(
          ctx,
          'token getserial',
          getSerialDetail(o),
          () => serialByOtp(ctx, otp, query),
          {},
          (r) => (r.serial ? { serial: r.serial } : {}),
        ),
      );
      if (!o.count && result.serial === null) process.exitCode = 1;
      if (o.json) return printJson(result);
      if (o.count) console.log(String(result.count));
      else if (result.serial !== null) console.log(result.serial);
      else console.log(`No token matches this OTP value (${result.count} tokens checked).`);
    });
  token.addCommand(tokenGroupCommand());
  token.addCommand(tokenImportCommand());
  return token;
}
