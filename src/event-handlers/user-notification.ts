// UserNotification (reference 7.1 "UserNotification"): sendmail sends a mail through an SMTP server
// definition to the token owner, the logged-in user or a given address; sendsms sends an SMS
// through an SMS gateway to the mobile number of the token owner or the logged-in user; savefile
// writes a file into the notification directory (event.notification_dir). Subject, body and file
// name with tags replaced.
import { ConfinedFileError, nameInside, writeFileInside } from '../files/index.ts';
import {
  type EventHandlerModule,
  type EventRun,
  type EventSms,
  type EventUser,
  replaceTags,
} from './module.ts';

const RECIPIENTS = ['tokenowner', 'logged_in_user', 'email'] as const;
const SMS_RECIPIENTS = ['tokenowner', 'logged_in_user'] as const;

const DEFAULT_SUBJECT = 'An action was performed on your token.';
const DEFAULT_BODY =
  'Hello {user},\n\nthe administrator {admin} performed the action {action} on your token {serial}.\n';
const DEFAULT_SMS_BODY =
  'Hello {user}, the administrator {admin} performed the action {action} on your token {serial}.';

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

function sms(run: EventRun): EventSms {
  if (!run.sms) throw new Error('UserNotification: the server lent no SMS sending');
  return run.sms;
}

async function sendsms(run: EventRun): Promise<void> {
  const to = run.options.To ?? '';
  if (!(SMS_RECIPIENTS as readonly string[]).includes(to)) {
    throw new Error(`UserNotification: sendsms goes to tokenowner or logged_in_user, not ${to}`);
  }
  const phone = await sms(run).phoneOf(to as EventUser);
  if (!phone) throw new Error(`UserNotification: no mobile number for the recipient ${to}`);
  await sms(run).send(
    run.options.smsconfig ?? '',
    phone,
    replaceTags(run.options.body || DEFAULT_SMS_BODY, run.tags),
  );
}

function savefile(run: EventRun): void {
  if (!run.settings) throw new Error('UserNotification: the server lent no notification directory');
  const place = 'the notification directory (event.notification_dir)';
  const name = nameInside(replaceTags(run.options.filename ?? '', run.tags), 'filename', place);
  try {
    writeFileInside(
      run.settings.notificationDir,
      name,
      replaceTags(run.options.body ?? '', run.tags),
      'the file',
    );
  } catch (e) {
    if (e instanceof ConfinedFileError) throw new Error(`UserNotification: ${e.message}`);
    throw e;
  }
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
    sendsms: {
      smsconfig: { type: 'str', required: true, description: 'The SMS gateway to send with.' },
      To: {
        type: 'str',
        required: true,
        description: 'Who gets the SMS (at the mobile number of the user store).',
        value: SMS_RECIPIENTS,
      },
      body: { type: 'text', description: 'The text; tags like {serial} are replaced.' },
    },
    savefile: {
      filename: {
        type: 'str',
        required: true,
        description:
          'The file in the notification directory (event.notification_dir); tags like {serial} are replaced. An existing file is overwritten.',
      },
      body: { type: 'text', required: true, description: 'The content; tags like {serial} are replaced.' },
    },
  },
  async run(action, run) {
    if (action === 'sendsms') await sendsms(run);
    else if (action === 'savefile') savefile(run);
    else if (action === 'sendmail') {
      await run.mailer.send(run.options.emailconfig ?? '', {
        to: await recipient(run),
        subject: replaceTags(run.options.subject || DEFAULT_SUBJECT, run.tags),
        body: replaceTags(run.options.body || DEFAULT_BODY, run.tags),
        mimetype: run.options.mimetype === 'html' ? 'html' : 'plain',
      });
    } else throw new Error(`UserNotification: unknown action ${action}`);
    return true;
  },
};
