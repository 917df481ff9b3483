// Sending a message through a stored gateway: the one internal API that SMS tokens, event handlers
// and `authsrv smsgateway test` use. It never throws for a failed send: the result says why, so a
// caller decides what a failure means (privacyIDEA's `exception=1`, an event's log line …). The
// provider's own timeout bounds the wait; nothing blocks the event loop meanwhile.
import { ParameterError } from '../../errors.ts';
import { SmsSendError, smsProvider } from '../../gateways/sms/index.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { sendMailVia } from '../smtpserver/index.ts';
import { providerSettings } from './definition.ts';
import { openGateway } from './gateways.ts';

export type SmsResult = { success: true } | { success: false; reason: string };

/** Phone numbers as E.164 and local forms write them: digits, +, blanks, ( ) - / . */
const PHONE = /^[+0-9 ()\-/.]{1,64}$/;

/** Sends `message` to `phone` through the gateway `gateway` (its name). */
export async function sendSms(
  rt: Runtime,
  gateway: string,
  phone: string,
  message: string,
): Promise<SmsResult> {
  if (!PHONE.test(phone)) {
    throw new ParameterError(`phone: '${phone}' is not a phone number (digits, +, blanks, ( ) - / .)`);
  }
  checkLength('message', message, LIMITS.text);
  const found = await openGateway(rt, gateway);
  if (!found) return { success: false, reason: `there is no SMS gateway ${gateway}` };
  try {
    const provider = smsProvider(found.definition.module);
    await provider.send(providerSettings(found.definition), phone, message, {
      log: rt.log,
      scriptsDir: rt.config.sms.scriptsDir,
      mail: (identifier, mail) => sendMailVia(rt, identifier, mail),
    });
    rt.log.info({ smsgateway: gateway }, 'SMS sent');
    return { success: true };
  } catch (e) {
    const reason =
      e instanceof SmsSendError || e instanceof ParameterError
        ? e.message
        : `unexpected error: ${(e as Error).message}`;
    rt.log.warn({ smsgateway: gateway, reason }, 'SMS not sent');
    return { success: false, reason };
  }
}
