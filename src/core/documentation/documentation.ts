// GET /system/documentation: the configuration of this installation as one reStructuredText
// document (reference 8.1): the server, the system configuration, administrators, resolvers,
// realms, policies, machine resolvers, SMTP servers, SMS gateways, RADIUS servers, CA connectors,
// event handlers, periodic tasks and GnuPG keys. Every value goes through the escaping writer of
// rst.ts; every secret is __CENSORED__: what the resources' lists censor already (password-typed
// configuration, resolver, SMTP, SMS and RADIUS secrets) and, once more, every setting whose name
// says it is a secret. It reads every resource, so it sits above all of them.
import { listAdmins } from '../auth/index.ts';
import type { Context } from '../context.ts';
import { listEventDefinitions } from '../event/index.ts';
import { listImportedKeys } from '../gpg/index.ts';
import { listMachineResolvers } from '../machineresolver/index.ts';
import { listPeriodicTasks } from '../periodictask/index.ts';
import { getPolicies } from '../policy/index.ts';
import { listRadiusServers } from '../radiusserver/index.ts';
import { listRealms } from '../realm/index.ts';
import { listResolvers } from '../resolver/index.ts';
import { listSmsGateways } from '../smsgateway/index.ts';
import { listSmtpServers } from '../smtpserver/index.ts';
import { CENSORED, listConfig } from '../system/index.ts';
import { caConnectorsOf } from './caconnectors.ts';
import { paragraph, section, table } from './rst.ts';

/** Setting names that hold a secret, whatever resource they belong to. */
const SECRET_NAME = /pass|pwd|secret|private|credential|authorization|api.?key/i;

/** A settings map as lines `name: value`, secret-named values censored. */
function settingsText(settings: Readonly<Record<string, unknown>>, censor = true): string {
  return Object.entries(settings)
    .map(([k, v]) => {
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      return `${k}: ${censor && SECRET_NAME.test(k) && text !== '' ? CENSORED : text}`;
    })
    .join('\n');
}

const yes = (b: boolean) => (b ? 'yes' : 'no');
const list = (values: readonly string[]) => values.join(', ');

async function secTitle(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section(`authsrv configuration of node ${ctx.node}`, 0));
  add(paragraph(`Generated: ${ctx.clock().toISOString()}`));
  return out;
}

async function secServer(ctx: Context): Promise<string[]> {
  const c = ctx.config;
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Server', 1));
  add(
    table(
      ['Setting', 'Value'],
      [
        ['node name', ctx.node],
        ['database', ctx.store.dialect],
        ['listen', `${c.http.host}:${c.http.port}${c.http.tlsCert ? ' (HTTPS)' : ''}`],
        ['trusted proxies', c.http.trustedProxies.join(', ') || '(none)'],
        ['response signing', c.security.signResponses ? 'on' : 'off'],
        ['JWT validity', `${c.security.jwtValidity} s`],
        ['security module', ctx.hsm.isReady() ? 'ready' : 'not ready'],
        ['GnuPG home', c.security.gnupgHome || '(none)'],
        ['audit max age', c.audit.maxAgeSeconds ? `${c.audit.maxAgeSeconds} s` : 'unlimited'],
        ['audit max rows', c.audit.maxRows ? String(c.audit.maxRows) : 'unlimited'],
      ],
    ),
  );

  return out;
}

async function secSystemConfiguration(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('System configuration', 1));
  const config = await listConfig(ctx);
  add(
    table(
      ['Key', 'Value'],
      Object.entries(config).map(([k, v]) => [k, SECRET_NAME.test(k) && v !== '' ? CENSORED : v]),
    ),
  );

  return out;
}

async function secAdministrators(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Administrators', 1));
  add(
    table(
      ['Name', 'Created'],
      (await listAdmins(ctx)).map((a) => [a.name, a.createdAt]),
    ),
  );

  return out;
}

async function secResolvers(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Resolvers', 1));
  add(
    table(
      ['Name', 'Type', 'Settings'],
      Object.entries(await listResolvers(ctx)).map(([name, r]) => [name, r.type, settingsText(r.data)]),
    ),
  );

  return out;
}

async function secRealms(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Realms', 1));
  add(
    table(
      ['Name', 'Default', 'Resolvers (priority, node)'],
      Object.entries(await listRealms(ctx)).map(([name, r]) => [
        name,
        yes(r.default),
        r.resolver
          .map(
            (x) =>
              `${x.name} (${x.type}${x.priority === null ? '' : `, ${x.priority}`}${x.node ? `, ${x.node}` : ''})`,
          )
          .join('\n'),
      ]),
    ),
  );

  return out;
}

async function secPolicies(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Policies', 1));
  const policies = Object.values(await getPolicies(ctx));
  if (policies.length === 0) add(paragraph('(none)'));
  for (const p of policies) {
    add(section(`Policy ${p.name}`, 2));
    add(
      table(
        ['Attribute', 'Value'],
        [
          ['scope', p.scope],
          ['active', yes(p.active)],
          ['priority', String(p.priority)],
          ['realm', list(p.realm)],
          ['resolver', list(p.resolver)],
          ['user', list(p.user)],
          ['admin realm', list(p.adminrealm)],
          ['admin user', list(p.adminuser)],
          ['client', list(p.client)],
          ['node', list(p.pinode)],
          ['user agents', list(p.user_agents)],
          ['time', p.time],
          ['conditions', p.conditions.map((t) => JSON.stringify(t)).join('\n')],
          ['description', p.description ?? ''],
          ['actions', settingsText(p.action, false)],
        ],
      ),
    );
  }

  return out;
}

async function secMachineResolvers(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Machine resolvers', 1));
  add(
    table(
      ['Name', 'Type', 'Settings'],
      Object.entries(await listMachineResolvers(ctx)).map(([name, r]) => [
        name,
        r.type,
        settingsText(r.data),
      ]),
    ),
  );

  return out;
}

async function secSmtpServers(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('SMTP servers', 1));
  add(
    table(
      ['Identifier', 'Settings'],
      Object.entries(await listSmtpServers(ctx)).map(([id, s]) => [
        id,
        settingsText({
          ...s,
          password: s.password === '' ? '' : CENSORED,
          cacertificate: s.cacertificate ? '(set)' : '',
        }),
      ]),
    ),
  );

  return out;
}

async function secSmsGateways(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('SMS gateways', 1));
  add(
    table(
      ['Name', 'Provider', 'Description', 'Options', 'Headers'],
      (await listSmsGateways(ctx)).map((g) => [
        g.name,
        g.providermodule,
        g.description,
        settingsText(g.options),
        settingsText(g.headers),
      ]),
    ),
  );

  return out;
}

async function secRadiusServers(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('RADIUS servers', 1));
  add(
    table(
      ['Identifier', 'Settings'],
      Object.entries(await listRadiusServers(ctx)).map(([id, r]) => [
        id,
        settingsText({ ...r, secret: CENSORED }),
      ]),
    ),
  );

  return out;
}

async function secCaConnectors(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('CA connectors', 1));
  add(
    table(
      ['Name', 'Type', 'Settings', 'Templates'],
      (await caConnectorsOf(ctx)).map((k) => [k.name, k.type, settingsText(k.data), list(k.templates)]),
    ),
  );

  return out;
}

async function secEventHandlers(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Event handlers', 1));
  add(
    table(
      ['Name', 'Active', 'Events', 'Handler', 'Action', 'Position', 'Order', 'Conditions', 'Options'],
      (await listEventDefinitions(ctx)).map((e) => [
        e.name,
        yes(e.active),
        list(e.event),
        e.handlermodule,
        e.action,
        e.position,
        String(e.ordering),
        settingsText(e.conditions, false),
        settingsText(e.options),
      ]),
    ),
  );

  return out;
}

async function secPeriodicTasks(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('Periodic tasks', 1));
  add(
    table(
      ['Name', 'Active', 'Module', 'Interval', 'Nodes', 'Order', 'Options'],
      (await listPeriodicTasks(ctx)).map((t) => [
        t.name,
        yes(t.active),
        t.taskmodule,
        t.interval,
        list(t.nodes),
        String(t.ordering),
        settingsText(t.options),
      ]),
    ),
  );

  return out;
}

async function secGnupgKeys(ctx: Context): Promise<string[]> {
  const out: string[] = [];
  const add = (lines: string[]) => out.push(...lines);
  add(section('GnuPG keys for token files', 1));
  add(
    table(
      ['Key id', 'Fingerprint', 'User ids'],
      (await listImportedKeys(ctx)).map((k) => [k.keyid, k.fingerprint, k.userids.join('\n')]),
    ),
  );
  return out;
}

/** The sections of the document, in order. */
const SECTIONS = [
  secTitle,
  secServer,
  secSystemConfiguration,
  secAdministrators,
  secResolvers,
  secRealms,
  secPolicies,
  secMachineResolvers,
  secSmtpServers,
  secSmsGateways,
  secRadiusServers,
  secCaConnectors,
  secEventHandlers,
  secPeriodicTasks,
  secGnupgKeys,
];

/** A reStructuredText report of the configuration; secrets appear only as __CENSORED__. */
export async function documentation(ctx: Context): Promise<string> {
  const out: string[] = [];
  for (const part of SECTIONS) out.push(...(await part(ctx)));
  return `${out.join('\n').trimEnd()}\n`;
}
