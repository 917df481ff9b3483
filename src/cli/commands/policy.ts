// `authsrv policy`: who may do what, where and when; as /policy/ of the API.
import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import type { Context } from '../../core/context.ts';
import {
  type ApiActionDef,
  checkPolicy,
  deletePolicy,
  disablePolicy,
  enablePolicy,
  exportPolicies,
  formatActionText,
  getPolicies,
  importPoliciesReport,
  LIST_FIELDS,
  type PolicyInput,
  type PolicyView,
  policyDefs,
  renamePolicy,
  setPolicy,
} from '../../core/policy/index.ts';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import {
  notBoth,
  printFields,
  printJson,
  printTable,
  readTextFile,
  runAudited,
  withContext,
} from '../common.ts';

export function policyCommand(): Command {
  return new Command('policy')
    .description('policies: who may do what, where and when')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(setCommand())
    .addCommand(nameCommand('enable', enablePolicy, 'enabled'))
    .addCommand(nameCommand('disable', disablePolicy, 'disabled'))
    .addCommand(nameCommand('delete', deletePolicy, 'deleted'))
    .addCommand(renameCommand())
    .addCommand(checkCommand())
    .addCommand(defsCommand())
    .addCommand(exportCommand())
    .addCommand(importCommand());
}

const NOT_FOUND = 'The requested Policy could not be found.';

interface ListOptions {
  scope?: string;
  realm?: string;
  active?: boolean;
  inactive?: boolean;
  json?: boolean;
}

function listCommand(): Command {
  return new Command('list')
    .description('list policies (ordered by name)')
    .option('--scope <scope>', 'only policies of this scope (* is a wildcard)')
    .option('--realm <realm>', 'only policies whose realm list is this text (* is a wildcard)')
    .option('--active', 'only active policies')
    .option('--inactive', 'only inactive policies')
    .option('--json', 'print JSON')
    .action(async (o: ListOptions, cmd: Command) => {
      notBoth(o.active, o.inactive, '--active', '--inactive');
      const active = o.active ? true : o.inactive ? false : undefined;
      const all = await withContext(cmd, (ctx) =>
        getPolicies(ctx, { scope: o.scope, realm: o.realm, active }),
      );
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Scope', 'Active', 'Priority', 'Actions', 'Conditions on'],
        Object.values(all).map((p) => [
          p.name,
          p.scope,
          p.active ? 'yes' : 'no',
          p.priority,
          formatActionText(p.action),
          conditionsCell(p),
        ]),
      );
    });
}

function conditionsCell(p: PolicyView): string {
  const lines = LIST_FIELDS.filter((f) => p[f].length > 0).map((f) => `${f}: ${shortList(p[f])}`);
  if (p.time !== '') lines.push(`time: ${p.time}`);
  if (p.conditions.length > 0) lines.push(`conditions: ${p.conditions.length}`);
  return lines.join('\n');
}

/** At most a few entries of a list, so that a long user list does not blow up the table. */
function shortList(values: readonly string[], max = 3): string {
  const shown = values.slice(0, max).join(', ');
  return values.length > max ? `${shown} (+${values.length - max})` : shown;
}

function showCommand(): Command {
  return new Command('show')
    .argument('<name>')
    .description('show every field of one policy')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const view = (await withContext(cmd, (ctx) => getPolicies(ctx, { name })))[name];
      if (!view) throw new ResourceNotFoundError(NOT_FOUND);
      if (o.json) return printJson(view);
      printPolicy(view);
    });
}

/** One `key: value` line per field; lists comma-joined, the action in the text form --action takes. */
function printPolicy(p: PolicyView): void {
  // pinode only repeats servicenode for privacyIDEA clients (it stays in --json).
  const { pinode: _pinode, ...fields } = p;
  const text = (key: string, value: unknown): string => {
    if (key === 'action') return formatActionText(p.action);
    if (key === 'conditions') return p.conditions.length > 0 ? JSON.stringify(p.conditions) : '';
    if (Array.isArray(value)) return value.join(', ');
    if (typeof value === 'boolean') return value ? 'yes' : 'no';
    return value === null ? '' : String(value);
  };
  printFields(Object.entries(fields).map(([key, value]) => [key, text(key, value)]));
}

interface SetOptions {
  scope: string;
  action?: string;
  realm?: string;
  resolver?: string;
  user?: string;
  adminrealm?: string;
  adminuser?: string;
  client?: string;
  servicenode?: string;
  userAgents?: string;
  time?: string;
  priority?: string;
  inactive?: boolean;
  checkAllResolvers?: boolean;
  userCaseInsensitive?: boolean;
  conditions?: string;
  description?: string;
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .description(
      'create a policy or update it: lists are comma-separated; absent lists, time, conditions and action keep their value, priority, description and the flags are always rewritten',
    )
    .requiredOption('--scope <scope>', 'admin, user, authentication, authorization, enrollment, webui, …')
    .option('--action <text>', "actions, e.g. 'tokenlist, otppin=userstore, -delete' (\\, escapes a comma)")
    .option('--realm <list>', 'user realms')
    .option('--resolver <list>', 'resolvers')
    .option('--user <list>', 'users')
    .option('--adminrealm <list>', 'realms of the administrators')
    .option('--adminuser <list>', 'administrators')
    .option('--client <list>', 'client IP addresses or networks (!net excludes)')
    .option('--servicenode <list>', 'nodes the policy applies on')
    .option('--user-agents <list>', 'user agents')
    .option('--time <text>', "time ranges, e.g. 'Mon-Fri: 08:00-18:00'")
    .option('--priority <n>', 'priority, 1 is the strongest (default 1)')
    .option('--inactive', 'store the policy inactive')
    .option('--check-all-resolvers', "match the user's other resolvers of the realm too")
    .option('--user-case-insensitive', 'compare user names case-insensitively')
    .option(
      '--conditions <json>',
      'extended conditions: a JSON list of [section, key, comparator, value, active]',
    )
    .option('--description <text>', 'description')
    .action(async (name: string, o: SetOptions, cmd: Command) => {
      const action = { command: 'policy set', detail: `${name} ${o.scope}` };
      const id = await runAudited(cmd, action, (ctx) => setPolicy(ctx, name, inputOf(o)));
      console.log(`Policy '${name}' saved (id ${id})`);
    });
}

/** The options as the service takes them: an undefined list, time or action keeps its stored value. */
function inputOf(o: SetOptions): PolicyInput {
  return {
    scope: o.scope,
    action: o.action,
    realm: o.realm,
    resolver: o.resolver,
    user: o.user,
    adminrealm: o.adminrealm,
    adminuser: o.adminuser,
    client: o.client,
    servicenode: o.servicenode,
    user_agents: o.userAgents,
    time: o.time,
    priority: o.priority,
    active: o.inactive !== true,
    check_all_resolvers: o.checkAllResolvers === true,
    user_case_insensitive: o.userCaseInsensitive === true,
    conditions: o.conditions,
    description: o.description,
  };
}

/** `policy enable|disable|delete <name>`: one change of a named policy. */
function nameCommand(
  verb: string,
  run: (ctx: Context, name: string) => Promise<unknown>,
  done: string,
): Command {
  return new Command(verb)
    .argument('<name>')
    .description(`${verb} a policy`)
    .action(async (name: string, _o, cmd: Command) => {
      await runAudited(cmd, { command: `policy ${verb}`, detail: name }, (ctx) => run(ctx, name));
      console.log(`Policy '${name}' ${done}.`);
    });
}

function renameCommand(): Command {
  return new Command('rename')
    .argument('<name>')
    .argument('<new-name>')
    .description('rename a policy')
    .action(async (name: string, newName: string, _o, cmd: Command) => {
      const action = { command: 'policy rename', detail: `${name} ${newName}` };
      await runAudited(cmd, action, (ctx) => renamePolicy(ctx, name, newName));
      console.log(`Policy '${name}' renamed to '${newName}'.`);
    });
}

interface CheckOptions {
  scope: string;
  action: string;
  user?: string;
  realm?: string;
  resolver?: string;
  client?: string;
  json?: boolean;
}

function checkCommand(): Command {
  return new Command('check')
    .description('which active policies match a request on this node now (exit 0 either way)')
    .requiredOption('--scope <scope>', 'scope of the request')
    .requiredOption('--action <action>', 'action of the request')
    .option('--user <user>', 'user')
    .option('--realm <realm>', 'realm')
    .option('--resolver <resolver>', 'resolver')
    .option('--client <ip>', 'client IP address')
    .option('--json', 'print JSON')
    .action(async (o: CheckOptions, cmd: Command) => {
      const { json, ...request } = o;
      const r = await withContext(cmd, (ctx) => checkPolicy(ctx, request));
      if (json) return printJson(r);
      console.log(`allowed: ${r.allowed ? 'yes' : 'no'}`);
      if (r.policy.length > 0) console.log(`policies: ${r.policy.map((p) => p.name).join(', ')}`);
      else if (r.info) console.log(`info: ${r.info}`);
    });
}

function defsCommand(): Command {
  return new Command('defs')
    .argument('[scope]')
    .description('the actions of a scope; without a scope the scopes (also: conditions, servicenodes)')
    .option('--json', 'print JSON')
    .action(async (scope: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const defs = await withContext(cmd, (ctx) => policyDefs(ctx, scope));
      // The pseudo-scopes have shapes of their own: sections and comparators, or node names.
      if (o.json || defs.kind === 'conditions' || defs.kind === 'nodes') return printJson(defs.defs);
      if (defs.kind === 'scopes') return printScopes(defs.defs);
      // The service answers an unknown scope with nothing, as privacyIDEA does; a shell user gets told.
      if (defs.kind === 'unknown') throw new ParameterError(`Invalid scope '${scope}'`);
      printActions(defs.defs);
    });
}

function printScopes(all: Record<string, Record<string, ApiActionDef>>): void {
  printTable(
    ['Scope', 'Actions'],
    Object.entries(all).map(([s, actions]) => [s, Object.keys(actions).length]),
  );
}

function printActions(actions: Record<string, ApiActionDef>): void {
  printTable(
    ['Action', 'Type', 'Group', 'Description'],
    Object.entries(actions).map(([name, d]) => [
      name,
      d.value ? `${d.type} (${d.value.join(', ')})` : d.type,
      d.group,
      d.desc,
    ]),
  );
}

function exportCommand(): Command {
  return new Command('export')
    .description('write every policy in the export format (privacyIDEA can read it too)')
    .option('--file <file>', 'write to this file instead of standard output')
    .action(async (o: { file?: string }, cmd: Command) => {
      const { text, count } = await withContext(cmd, (ctx) => exportPolicies(ctx));
      if (o.file === undefined) {
        process.stdout.write(text);
        return;
      }
      try {
        writeFileSync(o.file, text);
      } catch (e) {
        throw new ParameterError(`Cannot write ${o.file}: ${(e as Error).message}`);
      }
      process.stderr.write(`Exported ${count} policies to ${o.file}\n`);
    });
}

function importCommand(): Command {
  return new Command('import')
    .argument('<file>')
    .description("create or update the policies of an export file (authsrv's or privacyIDEA's); all or none")
    .action(async (file: string, _o, cmd: Command) => {
      const text = readTextFile(file);
      const action = { command: 'policy import', detail: file };
      const imported = await runAudited(cmd, action, (ctx) => importPoliciesReport(ctx, text));
      for (const { name, outcome } of imported) console.log(`${outcome} ${name}`);
    });
}
