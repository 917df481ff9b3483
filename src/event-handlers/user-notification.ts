// UserNotification: sends a mail through an SMTP server definition (reference 7.1
// "UserNotification", action sendmail) to the token owner, the logged-in user or a given address;
// subject and body with tags replaced.
import { type EventHandlerModule, type EventRun, replaceTags } from './module.ts';

const RECIPIENTS = ['tokenowner', 'logged_in_user', 'email'] as const;

const DEFAULT_SUBJECT = 'An action was performed on your token.';
const DEFAULT_BODY =
  'Hello {user},\n\nthe administrator {admin} performed the action {action} on your token {serial}.\n';

async function recipient(run: EventRun): Promise<string> {
  const to = run.options.To ?? '';
  const address =
    to === 'email'
      ? run.options['To email']
      : to === 'tokenowner' || to === 'logged_in_user'
        ? await run.mailer.addressOf(to)
        : undefined;
  if (!address) throw new Error(`UserNotification: no e-mail address for the recipient ${to}`);
  return address;
}

export const userNotificationModule: EventHandlerModule = {
  name: 'UserNotification',
  positions: ['post', 'pre'],
  actions: {
    sendmail: {
      emailconfig: { type: 'str', required: true, description: 'The SMTP server definition to send with.' },
      To: { type: 'str', required: true, description: 'Who gets the mail.', value: RECIPIENTS },
      'To email': { type: 'str', description: 'The address, for To = email.' },
      subject: { type: 'str', description: 'The subject; tags like {serial} are replaced.' },
      body: { type: 'text', description: 'The body; tags like {serial} are replaced.' },
      mimetype: { type: 'str', description: 'plain (default) or html.', value: ['plain', 'html'] },
    },
  },
  async run(_action, run) {
    await run.mailer.send(run.options.emailconfig ?? '', {
      to: await recipient(run),
      subject: replaceTags(run.options.subject || DEFAULT_SUBJECT, run.tags),
      body: replaceTags(run.options.body || DEFAULT_BODY, run.tags),
      mimetype: run.options.mimetype === 'html' ? 'html' : 'plain',
    });
    return true;
  },
};
