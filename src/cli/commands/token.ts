// `authsrv token`: tokens, as /token/ of the API: listing, enrollment, owners and the lifecycle.
// Enrollment, getserial, token groups and imports have files of their own (token-*.ts).
import { Command } from 'commander';
import type { Context } from '../../core/context.ts';
import {
  assignToken,
  deleteTokens,
  enableTokens,
  type ListQuery,
  listTokens,
  requireToken,
  resetTokens,
  resyncToken,
  revokeTokens,
  type Selection,
  setPins,
  type TokenView,
  tokenView,
  unassignTokens,
} from '../../core/token/index.ts';
import { TokenAdminError } from '../../errors.ts';
import {
  cellText,
  printFields,
  printJson,
  printTable,
  readNewPassword,
  runAudited,
  withContext,
} from '../common.ts';
import { tokenGetSerialCommand } from './token-getserial.ts';
import { tokenGroupCommand } from './token-group.ts';
import { tokenImportCommand } from './token-import.ts';
import { tokenInitCommand } from './token-init.ts';

export function tokenCommand(): Command {
  return new Command('token')
    .description('tokens: enroll, list, assign and manage their lifecycle')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(tokenInitCommand())
    .addCommand(assignCommand())
    .addCommand(lifecycleCommand('unassign'))
    .addCommand(enableCommand(true))
    .addCommand(enableCommand(false))
    .addCommand(lifecycleCommand('revoke'))
    .addCommand(lifecycleCommand('delete'))
    .addCommand(lifecycleCommand('reset'))
    .addCommand(resyncCommand())
    .addCommand(setpinCommand())
    .addCommand(tokenGetSerialCommand())
    .addCommand(tokenGroupCommand())
    .addCommand(tokenImportCommand());
}

/** The audit row of a command on one token. */
const serialAction = (verb: string, serial: string) => ({
  command: `token ${verb}`,
  detail: serial,
  fields: { serial },
});

interface ListOptions {
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
}

function listCommand(): Command {
  return new Command('list')
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
    .action(async (o: ListOptions, cmd: Command) => {
      const result = await withContext(cmd, (ctx) => listTokens(ctx, filterOf(o)));
      if (o.json) return printJson(result.tokens);
      printTable(
        ['Serial', 'Type', 'Active', 'Owner', 'Realms', 'Failcount', 'Description'],
        result.tokens.map((t) => [
          cellText(t.serial),
          cellText(t.tokentype),
          t.active ? 'yes' : 'no',
          ownerCell(t),
          cellText(t.realms),
          `${cellText(t.failcount)}/${cellText(t.maxfail)}`,
          cellText(t.description),
        ]),
      );
      if (result.count > result.tokens.length)
        process.stderr.write(`Showing ${result.tokens.length} of ${result.count} tokens.\n`);
    });
}

/** The filters of the options, as GET /token/ takes them; one page of up to 10 000 tokens. */
function filterOf(o: ListOptions): ListQuery {
  return {
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
  };
}

function ownerCell(t: TokenView): string {
  if (!t.username && !t.user_realm) return '';
  return `${cellText(t.username)}@${cellText(t.user_realm)}`;
}

function showCommand(): Command {
  return new Command('show')
    .argument('<serial>')
    .description('show every field of one token')
    .option('--json', 'print JSON')
    .action(async (serial: string, o: { json?: boolean }, cmd: Command) => {
      const view = await withContext(cmd, async (ctx) => tokenView(ctx, await requireToken(ctx, serial)));
      if (o.json) return printJson(view);
      printToken(view);
    });
}

/** One `key: value` line per field; the tokeninfo as `info.KEY` lines. */
function printToken(t: TokenView): void {
  const lines: [string, string][] = [];
  for (const [key, value] of Object.entries(t)) {
    if (key === 'info') {
      for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>))
        lines.push([`info.${k}`, cellText(v)]);
    } else if (typeof value === 'boolean') lines.push([key, value ? 'yes' : 'no']);
    else lines.push([key, cellText(value)]);
  }
  printFields(lines);
}

function assignCommand(): Command {
  return new Command('assign')
    .argument('<serial>')
    .description('give a token an owner')
    .requiredOption('--user <user>', 'the owner (USER or USER@REALM)')
    .option('--realm <realm>', "the owner's realm (default: the part after @, or the default realm)")
    .action(async (serial: string, o: { user: string; realm?: string }, cmd: Command) => {
      const action = {
        command: 'token assign',
        detail: `${serial} ${o.user}`,
        fields: { user: o.user, serial, ...(o.realm ? { realm: o.realm } : {}) },
      };
      await runAudited(cmd, action, (ctx) => assignToken(ctx, { serial, user: o.user, realm: o.realm }));
      console.log(`Token '${serial}' assigned to ${o.user}${o.realm ? `@${o.realm}` : ''}.`);
    });
}

interface LifecycleAction {
  description: string;
  run: (ctx: Context, sel: Selection) => Promise<unknown>;
  /** What the command prints after `Token '<serial>' `. */
  done: string;
}

/** The lifecycle actions on one token that answer with a fixed sentence. */
const LIFECYCLE = {
  unassign: {
    description: 'remove the owner, the PIN and the fail count of a token',
    run: unassignTokens,
    done: 'unassigned.',
  },
  revoke: {
    description: 'revoke a token: locked and inactive for good',
    run: revokeTokens,
    done: 'revoked.',
  },
  delete: { description: 'delete a token', run: deleteTokens, done: 'deleted.' },
  reset: { description: 'reset the fail counter of a token', run: resetTokens, done: 'fail counter reset.' },
} satisfies Record<string, LifecycleAction>;

/** `token unassign|revoke|delete|reset <serial>`. */
function lifecycleCommand(verb: keyof typeof LIFECYCLE): Command {
  const { description, run, done }: LifecycleAction = LIFECYCLE[verb];
  return new Command(verb)
    .argument('<serial>')
    .description(description)
    .action(async (serial: string, _o, cmd: Command) => {
      await runAudited(cmd, serialAction(verb, serial), (ctx) => run(ctx, { serial }));
      console.log(`Token '${serial}' ${done}`);
    });
}

/** `token enable|disable <serial>`; says so when the token already was. */
function enableCommand(enable: boolean): Command {
  const verb = enable ? 'enable' : 'disable';
  return new Command(verb)
    .argument('<serial>')
    .description(`${verb} a token`)
    .action(async (serial: string, _o, cmd: Command) => {
      const changed = await runAudited(cmd, serialAction(verb, serial), (ctx) =>
        enableTokens(ctx, { serial }, enable),
      );
      console.log(changed > 0 ? `Token '${serial}' ${verb}d.` : `Token '${serial}' was already ${verb}d.`);
    });
}

function resyncCommand(): Command {
  return new Command('resync')
    .argument('<serial>')
    .argument('<otp1>')
    .argument('<otp2>')
    .description('resynchronize a HOTP or TOTP token with two consecutive OTP values')
    .action(async (serial: string, otp1: string, otp2: string, _o, cmd: Command) => {
      await runAudited(cmd, serialAction('resync', serial), async (ctx) => {
        if (!(await resyncToken(ctx, { serial }, otp1, otp2)))
          throw new TokenAdminError(`Token '${serial}' could not be resynchronized with these values`);
      });
      console.log(`Token '${serial}' resynchronized.`);
    });
}

function setpinCommand(): Command {
  return new Command('setpin')
    .argument('<serial>')
    .description('set the PIN of a token (hidden prompt, or --pin-stdin for scripts)')
    .option('--pin-stdin', 'read the PIN from standard input')
    .action(async (serial: string, o: { pinStdin?: boolean }, cmd: Command) => {
      const pin = await readNewPassword(o.pinStdin === true, NO_TERMINAL_FOR_PIN);
      await runAudited(cmd, serialAction('setpin', serial), (ctx) => setPins(ctx, { serial }, pin));
      console.log(`PIN of token '${serial}' set.`);
    });
}

const NO_TERMINAL_FOR_PIN = 'No terminal to ask for the PIN: pipe it in with --pin-stdin';
