// One Access-Request with PAP, as /validate/check would take it: User-Name (user@realm split by the
// validate service, exactly as for /validate/check) and the clear User-Password go through core's
// clientCheck with its policies, fail counters and challenges; the event validate_check fires pre
// and post around it, and one audit row is written. A State attribute carries the transaction_id
// of the challenge it answers. The throttling counts against the end user's address of a
// Calling-Station-Id that is an IP address (radius.throttle_by_calling_station_id), else against
// the NAS's; the policies, the audit and the client list always see the NAS. What comes back is the RADIUS answer: Access-Accept,
// Access-Reject, or Access-Challenge with State and the challenge text as Reply-Message.
import { isIP } from 'node:net';
import { newAuditEntry, writeAudit } from '../core/audit/index.ts';
import type { Runtime } from '../core/context.ts';
import { fireEvent } from '../core/event/index.ts';
import type { RadiusClient } from '../core/radiusclient/index.ts';
import {
  answerOf,
  checkAuditColumns,
  clientCheck,
  type RadiusReplyAttribute,
  radiusReplyAttributes,
} from '../core/validate/index.ts';
import { asAuthsrvError } from '../errors.ts';
import {
  ATTRIBUTE,
  attributeOf,
  CODE,
  MAX_ATTRIBUTE_VALUE,
  type RadiusAttribute,
  type RadiusPacket,
  revealPassword,
  textAttribute,
} from '../radius-packet/index.ts';

export interface RadiusReply {
  code: number;
  attributes: RadiusAttribute[];
}

/** A Reply-Message in as many attributes as it needs (at most four: a NAS shows one line or two). */
export function replyMessageAttributes(message: string | undefined): RadiusAttribute[] {
  if (!message) return [];
  const bytes = Buffer.from(message, 'utf8');
  const out: RadiusAttribute[] = [];
  for (let at = 0; at < bytes.length && out.length < 4; at += MAX_ATTRIBUTE_VALUE)
    out.push({ type: ATTRIBUTE.ReplyMessage, value: bytes.subarray(at, at + MAX_ATTRIBUTE_VALUE) });
  return out;
}

function reject(message?: string): RadiusReply {
  return { code: CODE.AccessReject, attributes: replyMessageAttributes(message) };
}

/** The attribute types of the reply attributes core may give. */
const REPLY_TYPES: Readonly<Record<RadiusReplyAttribute['name'], number>> = {
  Class: ATTRIBUTE.Class,
  'Filter-Id': ATTRIBUTE.FilterId,
  'Session-Timeout': ATTRIBUTE.SessionTimeout,
  'Reply-Message': ATTRIBUTE.ReplyMessage,
};

function encodeReplyAttribute(a: RadiusReplyAttribute): RadiusAttribute {
  if (a.name === 'Session-Timeout') {
    const value = Buffer.alloc(4);
    value.writeUInt32BE(Number(a.value));
    return { type: REPLY_TYPES[a.name], value };
  }
  return { type: REPLY_TYPES[a.name], value: Buffer.from(a.value, 'utf8') };
}

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The answer to an Access-Request from `client` at `source` (the NAS's address). */
export async function accessRequest(
  rt: Runtime,
  client: RadiusClient,
  source: string,
  request: RadiusPacket,
): Promise<RadiusReply> {
  const audit = newAuditEntry('RADIUS Access-Request', rt.clock(), source);
  audit.user_agent = `RADIUS client ${client.name}`;
  const user = textAttribute(request, ATTRIBUTE.UserName);
  const hidden = attributeOf(request, ATTRIBUTE.UserPassword);
  const state = attributeOf(request, ATTRIBUTE.State);
  audit.user = user ?? '';
  let reply: RadiusReply;
  if (user === undefined || hidden === undefined) {
    // CHAP and EAP cannot carry an OTP to a server that keeps no clear secrets: PAP only.
    audit.info = user === undefined ? 'no User-Name' : 'no User-Password (only PAP is supported)';
    reply = reject(audit.info);
  } else {
    reply = await checked(rt, client, { ip: source, throttleAddress: endUserAddress(rt, request) }, audit, {
      user,
      pass: revealPassword(hidden, client.secret, request.authenticator).toString('utf8'),
      ...(state ? { transaction_id: state.toString('utf8') } : {}),
    });
  }
  try {
    await writeAudit(rt, audit);
  } catch (e) {
    // Audit and effect are never separated: without its row, the request is not answered.
    rt.log.error({ err: e, audit }, 'audit row could not be written: the RADIUS request is not answered');
    throw e;
  }
  return reply;
}

/**
 * The end user's address for the throttling: the NAS's Calling-Station-Id when it is an IP address
 * (a VPN's client address) and radius.throttle_by_calling_station_id is on; otherwise undefined, and
 * the NAS's address counts (a MAC address on Wi-Fi, a telephone number, or nothing). The NAS holds
 * the shared secret, so its word on the user's address is trusted as far as the NAS is.
 */
function endUserAddress(rt: Runtime, request: RadiusPacket): string | undefined {
  if (!rt.config.radius.throttleByCallingStationId) return undefined;
  const calling = textAttribute(request, ATTRIBUTE.CallingStationId)?.trim();
  return calling && isIP(calling) ? calling : undefined;
}

/** The check itself between the events validate_check pre and post. */
async function checked(
  rt: Runtime,
  client: RadiusClient,
  from: { ip: string; throttleAddress: string | undefined },
  audit: ReturnType<typeof newAuditEntry>,
  params: Record<string, string>,
): Promise<RadiusReply> {
  const source = from.ip;
  const event = { event: 'validate_check', caller: undefined, client: source, params };
  const edits = {
    parameters: {
      get: (name: string) => (Object.hasOwn(params, name) ? params[name] : undefined),
      set: (name: string, value: string) => {
        params[name] = value;
      },
      delete: (name: string) => {
        delete params[name];
      },
    },
  };
  try {
    await fireEvent(rt, event, 'pre', undefined, edits);
    const seen = {
      ip: source,
      userAgent: `authsrv-radius/${client.name}`,
      ...(from.throttleAddress ? { throttleAddress: from.throttleAddress } : {}),
    };
    const res = await clientCheck(rt, seen, () => ({
      user: params.user,
      realm: params.realm,
      pass: params.pass,
      transactionId: params.transaction_id || undefined,
    }));
    Object.assign(audit, checkAuditColumns(res));
    const detail = res.detail ?? {};
    const answer = answerOf(res);
    const replyAttributes = answer === 'ACCEPT' ? await radiusReplyAttributes(rt, res, source) : [];
    await fireEvent(
      rt,
      event,
      'post',
      {
        status: true,
        value: res.value,
        authentication: answer,
        message: text(detail.message),
        serial: text(detail.serial),
      },
      edits,
    );
    if (answer === 'ACCEPT') {
      const attributes = replyAttributes.map(encodeReplyAttribute);
      // A Reply-Message of the policy replaces the check's message.
      const own = attributes.some((a) => a.type === ATTRIBUTE.ReplyMessage);
      return {
        code: CODE.AccessAccept,
        attributes: [...(own ? [] : replyMessageAttributes(text(detail.message))), ...attributes],
      };
    }
    const transaction = text(detail.transaction_id);
    if (answer === 'CHALLENGE' && transaction && Buffer.byteLength(transaction) <= MAX_ATTRIBUTE_VALUE)
      return {
        code: CODE.AccessChallenge,
        attributes: [
          { type: ATTRIBUTE.State, value: Buffer.from(transaction, 'utf8') },
          ...replyMessageAttributes(text(detail.message)),
        ],
      };
    return reject(text(detail.message));
  } catch (e) {
    const error = asAuthsrvError(e);
    const message = error.expose ? error.message : 'internal error';
    if (!error.expose) rt.log.error({ err: e }, 'RADIUS Access-Request failed');
    audit.info ||= message;
    audit.success = false;
    await fireEvent(rt, event, 'post', { status: false, value: undefined, error: message }, edits).catch(
      () => {},
    );
    return reject(message);
  }
}
