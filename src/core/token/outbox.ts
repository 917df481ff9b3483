// The channels core lends the token types that deliver a challenge out of band (e-mail now; SMS
// joins here): each sends through a definition the type names, by the services that own those.
import type { Outbox } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { sendMailVia } from '../smtpserver/index.ts';

export function outboxOf(rt: Runtime): Outbox {
  return { mail: (identifier, mail) => sendMailVia(rt, identifier, mail) };
}
