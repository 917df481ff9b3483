// CustomUserAttributes: sets or deletes a custom attribute of the token owner or of the logged-in
// user (reference 7.1 "CustomUserAttributes"), through core's user attributes, as the server
// itself: the definition was authorised when it was saved, so no admin policy applies here.
import type { EventHandlerModule, EventRun, EventUser, EventUserAttributes, OptionSpec } from './module.ts';

const USERS = ['tokenowner', 'logged_in_user'] as const;

const USER: OptionSpec = {
  type: 'str',
  required: true,
  description: 'Whose attribute: the owner of the token or the logged-in user.',
  value: USERS,
};

function who(run: EventRun): EventUser {
  const user = run.options.user ?? '';
  if (!(USERS as readonly string[]).includes(user)) {
    throw new Error(`CustomUserAttributes: user must be tokenowner or logged_in_user, not ${user}`);
  }
  return user as EventUser;
}

function attributes(run: EventRun): EventUserAttributes {
  if (!run.userAttributes) throw new Error('CustomUserAttributes: the server lent no user attributes');
  return run.userAttributes;
}

export const customUserAttributesModule: EventHandlerModule = {
  name: 'CustomUserAttributes',
  positions: ['post', 'pre'],
  actions: {
    set_custom_user_attributes: {
      user: USER,
      attrkey: { type: 'str', description: 'The key of the attribute.' },
      attrvalue: { type: 'str', description: 'The value of the attribute.' },
    },
    delete_custom_user_attributes: {
      user: USER,
      attrkey: { type: 'str', description: 'The key of the attribute to delete.' },
    },
  },
  async run(action, run) {
    const key = run.options.attrkey ?? '';
    if (key === '') throw new Error(`CustomUserAttributes: ${action} needs an attrkey`);
    if (action === 'set_custom_user_attributes') {
      await attributes(run).set(who(run), key, run.options.attrvalue ?? '');
    } else if (action === 'delete_custom_user_attributes') {
      await attributes(run).delete(who(run), key);
    } else throw new Error(`CustomUserAttributes: unknown action ${action}`);
    return true;
  },
};
