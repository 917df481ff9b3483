// Token: changes the token of the request (reference 7.1 "Token" module) through the operations
// core lends; without a token in the request such an action has nothing to act on and fails.
// `enroll` makes a new token instead, for the request's user or for none.
import type {
  EventEnrollment,
  EventHandlerModule,
  EventRun,
  OptionSpec,
  TokenAttribute,
  TokenOperations,
} from './module.ts';
import { optionIsTrue, replaceTags } from './module.ts';
import { replaceNowTags } from './now-tag.ts';

type Options = Readonly<Record<string, string>>;

interface TokenAction {
  options: Readonly<Record<string, OptionSpec>>;
  /** What is wrong with the options, checked when a definition is saved. */
  check?(options: Options): void;
  /** An action on the request's token … */
  run?(token: TokenOperations, options: Options, run: EventRun): Promise<void>;
  /** … or one that needs none (enroll). */
  runWithoutToken?(options: Options, run: EventRun): Promise<void>;
}

const required = (description: string): OptionSpec => ({ type: 'str', required: true, description });
const optional = (description: string): OptionSpec => ({ type: 'str', description });
const flag = (description: string): OptionSpec => ({ type: 'bool', description });

/** An integer option: digits with an optional sign (signed) or digits only. */
function integer(
  options: Options,
  name: string,
  opts: { signed?: boolean; min?: number; max?: number } = {},
) {
  const text = options[name];
  if (text === undefined || text === '') return;
  const pattern = opts.signed ? /^\s*[+-]?\d{1,9}\s*$/ : /^\s*\d{1,9}\s*$/;
  const n = Number(text);
  if (
    !pattern.test(text) ||
    (opts.min !== undefined && n < opts.min) ||
    (opts.max !== undefined && n > opts.max)
  ) {
    const range =
      opts.min !== undefined && opts.max !== undefined
        ? ` from ${opts.min} to ${opts.max}`
        : opts.signed
          ? ' like +1 or -2'
          : ' (0 or more)';
    throw new Error(`The option ${name} must be an integer${range}, not '${text}'.`);
  }
}

/** The additional_params of `enroll`: a JSON object, its values as texts. */
function additionalParams(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('The option additional_params must be a JSON object.');
  }
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
}

/** The tags privacyIDEA replaces in descriptions and tokeninfo values ({now} with offsets too). */
function timeTagged(text: string, run: EventRun, names: readonly string[]): string {
  const tags = Object.fromEntries(names.map((n) => [n, run.tags[n] ?? '']));
  return replaceTags(replaceNowTags(text, run.now), tags);
}

/** An action that sets token attributes from options: option name → attribute. */
function setting(
  options: Readonly<Record<string, [TokenAttribute, OptionSpec]>>,
  check?: (options: Options) => void,
): TokenAction {
  return {
    options: Object.fromEntries(Object.entries(options).map(([name, [, spec]]) => [name, spec])),
    ...(check ? { check } : {}),
    run: (token, given) => {
      const values: Partial<Record<TokenAttribute, string>> = {};
      for (const [name, [attribute]] of Object.entries(options)) {
        if (given[name] !== undefined) values[attribute] = given[name];
      }
      return token.setAttributes(values);
    },
  };
}

const APPLICATIONS = ['ssh', 'offline', 'luks'] as const;

/** The options of `attach application` that become the attachment's options. */
const ATTACH_OPTIONS = ['service_id', 'user', 'count', 'rounds', 'slot', 'partition'] as const;

/** What `enroll` asks core for. */
function enrollment(o: Options): EventEnrollment {
  const type = (o.tokentype ?? '').trim().toLowerCase();
  const forUser = optionIsTrue(o.user);
  const params: Record<string, string> = { type, genkey: '1' };
  const fromUser: Record<string, string> = {};
  if (o.realm) params.realm = o.realm;
  if (type === 'sms') {
    if (optionIsTrue(o.dynamic_phone)) params.dynamic_phone = '1';
    else if (forUser) fromUser.phone = 'mobile';
    if (o.sms_identifier) params['sms.identifier'] = o.sms_identifier;
  } else if (type === 'email') {
    if (optionIsTrue(o.dynamic_email)) params.dynamic_email = '1';
    else if (forUser) fromUser.email = 'email';
    if (o.smtp_identifier) params['email.identifier'] = o.smtp_identifier;
  } else if (type === 'motp' && o.motppin) params.motppin = o.motppin;
  Object.assign(params, additionalParams(o.additional_params));
  return { params, forUser, fromUser };
}

const ACTIONS: Readonly<Record<string, TokenAction>> = {
  disable: { options: {}, run: (token) => token.setActive(false) },
  enable: { options: {}, run: (token) => token.setActive(true) },
  delete: { options: {}, run: (token) => token.remove() },
  unassign: { options: {}, run: (token) => token.unassign() },
  'set description': {
    options: {
      description: optional('The new description (may be empty); {now}, {now}+1d, {client_ip} replaced.'),
    },
    run: (token, o, run) =>
      token.setAttributes({ description: timeTagged(o.description ?? '', run, ['client_ip']) }),
  },
  'set validity': setting({
    'valid from': ['validity_period_start', optional('Start of the validity period.')],
    'valid till': ['validity_period_end', optional('End of the validity period.')],
  }),
  'set max failcount': setting(
    { 'max failcount': ['max_failcount', required('The maximum fail count.')] },
    (o) => integer(o, 'max failcount'),
  ),
  'set countwindow': setting({ 'count window': ['count_window', required('The count window.')] }, (o) =>
    integer(o, 'count window'),
  ),
  'set tokeninfo': {
    options: {
      key: required('The tokeninfo key.'),
      value: optional('The value; {now}, {now}-10d, {client_ip}, {username}, {realm} replaced.'),
    },
    run: (token, o, run) =>
      token.setInfo(o.key ?? '', timeTagged(o.value ?? '', run, ['client_ip', 'username', 'realm'])),
  },
  'increase tokeninfo': {
    options: {
      key: required('The tokeninfo key whose integer value is increased.'),
      increment: optional('The increment (default 1; negative decreases).'),
    },
    check: (o) => integer(o, 'increment', { signed: true }),
    run: (token, o) => token.increaseInfo(o.key ?? '', o.increment ? Number(o.increment) : 1),
  },
  'delete tokeninfo': {
    options: { key: required('The tokeninfo key.') },
    run: (token, o) => token.deleteInfo(o.key ?? ''),
  },
  'set tokenrealm': {
    options: {
      realm: required('The realm to put the token into.'),
      only_realm: flag('Make it the only realm of the token.'),
    },
    run: (token, o) => token.setRealm(o.realm ?? '', optionIsTrue(o.only_realm)),
  },
  'set random pin': {
    options: { length: { type: 'int', required: true, description: 'The length of the PIN.' } },
    check: (o) => integer(o, 'length', { min: 1, max: 128 }),
    run: async (token, o, run) => {
      const pin = await token.setRandomPin(Number(o.length));
      run.addTags({ pin });
    },
  },
  'set failcounter': {
    options: { 'fail counter': required('The new fail counter of the token.') },
    check: (o) => integer(o, 'fail counter'),
    run: (token, o) => token.setFailcount(Number(o['fail counter'])),
  },
  'change failcounter': {
    options: {
      'change fail counter': required('Added to the fail counter, like +1 or -2 (it stays 0 or more).'),
    },
    check: (o) => integer(o, 'change fail counter', { signed: true }),
    run: (token, o) => token.changeFailcount(Number(o['change fail counter'])),
  },
  'add tokengroup': {
    options: { tokengroup: required('The token group to add the token to.') },
    run: (token, o) => token.addToGroup(o.tokengroup ?? ''),
  },
  'remove tokengroup': {
    options: { tokengroup: required('The token group to remove the token from.') },
    run: (token, o) => token.removeFromGroup(o.tokengroup ?? ''),
  },
  'attach application': {
    options: {
      application: { type: 'str', required: true, description: 'The application.', value: APPLICATIONS },
      'machine ID': optional(
        'The id of the machine (with resolver); none: any machine where the application allows it.',
      ),
      resolver: optional('The machine resolver of the machine ID.'),
      service_id: optional('ssh: the service ID.'),
      user: optional('ssh: the login user on the machine.'),
      count: optional('offline: the number of OTP values.'),
      rounds: optional('offline: the hash rounds.'),
      slot: optional('luks: the slot.'),
      partition: optional('luks: the partition.'),
    },
    check: (o) => {
      if (!(APPLICATIONS as readonly string[]).includes(o.application ?? '')) {
        throw new Error(`The option application must be one of ${APPLICATIONS.join(', ')}.`);
      }
      integer(o, 'count');
      integer(o, 'rounds');
    },
    run: (token, o) =>
      token.attach({
        application: o.application ?? '',
        machineId: o['machine ID'] || undefined,
        resolver: o.resolver || undefined,
        options: Object.fromEntries(
          ATTACH_OPTIONS.filter((k) => o[k] !== undefined && o[k] !== '').map((k) => [k, o[k] as string]),
        ),
      }),
  },
  enroll: {
    options: {
      tokentype: required('The type of the new token.'),
      user: flag("For the request's user (the owner of its token, else the user it names)."),
      realm: optional('A realm of the new token.'),
      dynamic_phone: flag('sms: read the number from the user store at each challenge.'),
      dynamic_email: flag('email: read the address from the user store at each challenge.'),
      sms_identifier: optional('sms: the SMS gateway.'),
      smtp_identifier: optional('email: the SMTP server definition.'),
      additional_params: { type: 'text', description: 'More enrollment parameters, as a JSON object.' },
      motppin: optional('motp: the mOTP PIN.'),
    },
    check: (o) => {
      additionalParams(o.additional_params);
    },
    runWithoutToken: async (o, run) => {
      await run.enroll(enrollment(o));
    },
  },
};

export const tokenModule: EventHandlerModule = {
  name: 'Token',
  positions: ['post', 'pre'],
  actions: Object.fromEntries(Object.entries(ACTIONS).map(([name, a]) => [name, a.options])),
  checkOptions(action, options) {
    ACTIONS[action]?.check?.(options);
  },
  async run(action, run) {
    const todo = ACTIONS[action];
    if (!todo) throw new Error(`Token: unknown action ${action}`);
    if (todo.runWithoutToken) await todo.runWithoutToken(run.options, run);
    else {
      if (!run.token) throw new Error(`Token: the event ${run.event} names no token`);
      await todo.run?.(run.token, run.options, run);
    }
    return true;
  },
};
