// Token: changes the token of the request (reference 7.1 "Token" module) through the operations
// core lends; without a token in the request the action has nothing to act on and fails.
import type { EventHandlerModule, OptionSpec, TokenAttribute, TokenOperations } from './module.ts';
import { optionIsTrue } from './module.ts';

type Options = Readonly<Record<string, string>>;

interface TokenAction {
  options: Readonly<Record<string, OptionSpec>>;
  run(token: TokenOperations, options: Options): Promise<void>;
}

const required = (description: string): OptionSpec => ({ type: 'str', required: true, description });
const optional = (description: string): OptionSpec => ({ type: 'str', description });

/** An action that sets token attributes from options: option name → attribute. */
function setting(options: Readonly<Record<string, [TokenAttribute, OptionSpec]>>): TokenAction {
  return {
    options: Object.fromEntries(Object.entries(options).map(([name, [, spec]]) => [name, spec])),
    run: (token, given) => {
      const values: Partial<Record<TokenAttribute, string>> = {};
      for (const [name, [attribute]] of Object.entries(options)) {
        if (given[name] !== undefined) values[attribute] = given[name];
      }
      return token.setAttributes(values);
    },
  };
}

const ACTIONS: Readonly<Record<string, TokenAction>> = {
  disable: { options: {}, run: (token) => token.setActive(false) },
  enable: { options: {}, run: (token) => token.setActive(true) },
  delete: { options: {}, run: (token) => token.remove() },
  unassign: { options: {}, run: (token) => token.unassign() },
  'set description': setting({
    description: ['description', optional('The new description (may be empty).')],
  }),
  'set validity': setting({
    'valid from': ['validity_period_start', optional('Start of the validity period.')],
    'valid till': ['validity_period_end', optional('End of the validity period.')],
  }),
  'set max failcount': setting({ 'max failcount': ['max_failcount', required('The maximum fail count.')] }),
  'set countwindow': setting({ 'count window': ['count_window', required('The count window.')] }),
  'set tokeninfo': {
    options: { key: required('The tokeninfo key.'), value: optional('The value.') },
    run: (token, o) => token.setInfo(o.key ?? '', o.value ?? ''),
  },
  'delete tokeninfo': {
    options: { key: required('The tokeninfo key.') },
    run: (token, o) => token.deleteInfo(o.key ?? ''),
  },
  'set tokenrealm': {
    options: {
      realm: required('The realm to put the token into.'),
      only_realm: { type: 'bool', description: 'Make it the only realm of the token.' },
    },
    run: (token, o) => token.setRealm(o.realm ?? '', optionIsTrue(o.only_realm)),
  },
};

export const tokenModule: EventHandlerModule = {
  name: 'Token',
  positions: ['post', 'pre'],
  actions: Object.fromEntries(Object.entries(ACTIONS).map(([name, a]) => [name, a.options])),
  async run(action, run) {
    const todo = ACTIONS[action];
    if (!todo) throw new Error(`Token: unknown action ${action}`);
    if (!run.token) throw new Error(`Token: the event ${run.event} names no token`);
    await todo.run(run.token, run.options);
    return true;
  },
};
