// The channels core lends the token types that deliver a challenge out of band (e-mail, SMS):
// each sends through a definition the type names, by the services that own those.
import type { Outbox } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { sendSms } from '../smsgateway/index.ts';
import { sendMailVia } from '../smtpserver/index.ts';

export function outboxOf(rt: Runtime): Outbox {
  return {
    mail: (identifier, mail) => sendMailVia(rt, identifier, mail),
    // sendSms answers a failure instead of throwing; a channel rejects with the reason.
    sms: async (gateway, phone, message) => {
      const sent = await sendSms(rt, gateway, phone, message);
      if (!sent.success) throw new Error(sent.reason);
    },
  };
}
