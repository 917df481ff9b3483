// /validate (reference 4, spec "Validate"): check, samlcheck, radiuscheck, triggerchallenge,
// polltransaction, offlinerefill (reference 6.6; privacyIDEA's event validate_offlinerefill).
// Public except triggerchallenge; every answer but offlinerefill's carries id 2 and
// result.authentication.
import type { AuditEntry } from '../../core/audit/index.ts';
import type { ClientSeen } from '../../core/client/index.ts';
import {
  type CheckInput,
  type CheckResult,
  checkAuditColumns,
  clientCheck,
  clientOfflineRefill,
  clientPoll,
  pollAuditColumns,
  samlAttributes,
  triggerChallenge,
} from '../../core/validate/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { type ApiCall, adminRoute, firing, type Handler, type RouteTable } from '../route.ts';

export function validateRoutes(r: RouteTable): void {
  r.add(GET_OR_POST, '/validate/check', firing('validate_check', {}), checkPass);
  r.add(GET_OR_POST, '/validate/samlcheck', firing('validate_check', {}), samlCheck);
  r.add(GET_OR_POST, '/validate/radiuscheck', firing('validate_check', {}), radiusCheck);
  r.add(
    GET_OR_POST,
    '/validate/triggerchallenge',
    firing('validate_triggerchallenge', adminRoute('triggerchallenge')),
    trigger,
  );
  r.add('post', '/validate/offlinerefill', firing('validate_offlinerefill', {}), offlineRefill);
  r.add(
    'get',
    ['/validate/polltransaction', '/validate/polltransaction/:transaction_id'],
    firing('validate_poll_transaction', {}),
    poll,
  );
}

const GET_OR_POST: ('get' | 'post')[] = ['get', 'post'];

/** The request headers a handler sees (names in lower case). */
type Headers = ApiCall['headers'];

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v || undefined;
}

/** The raw JWT for api_key_required: PI-Authorization, then Authorization. */
function authorizationOf(headers: Headers): string | undefined {
  return header(headers, 'pi-authorization') ?? header(headers, 'authorization');
}

/** The client application of a check (the whole User-Agent, as the client table keeps it). */
function clientOf(client: string, headers: Headers): ClientSeen {
  return { ip: client, userAgent: header(headers, 'user-agent') };
}

/** The input of a check; the audit names the user and serial asked for even when the check fails. */
function checkInput(params: Params, audit: AuditEntry, headers: Headers): Omit<CheckInput, 'client'> {
  audit.user = params.str('user') ?? '';
  audit.serial = params.str('serial') ?? '';
  return {
    user: params.str('user'),
    realm: params.str('realm'),
    serial: params.str('serial'),
    pass: params.str('pass'),
    transactionId: params.str('transaction_id') || params.str('state') || undefined,
    type: params.str('type'),
    otponly: params.bool('otponly'),
    exception: params.bool('exception'),
    apiKey: { authorization: authorizationOf(headers) },
  };
}

/**
 * The check of check, samlcheck and radiuscheck, its outcome (and answer) in the audit entry;
 * `wantsAuthItems` for the answer that carries auth_items (check).
 */
async function checkOf(
  { rt, params, audit, client, headers }: ApiCall,
  wantsAuthItems = false,
): Promise<CheckResult> {
  const res = await clientCheck(rt, clientOf(client, headers), () => ({
    ...checkInput(params, audit, headers),
    wantsAuthItems,
  }));
  Object.assign(audit, checkAuditColumns(res));
  return res;
}

const checkPass: Handler = async (call) => {
  const res = await checkOf(call, true);
  const members = res.authItems ? { auth_items: res.authItems } : undefined;
  return { rid: 2, value: res.value, detail: res.detail, members };
};

/** POST /validate/offlinerefill: new offline values for those used, `value` true, no detail. */
const offlineRefill: Handler = async ({ rt, params, audit, client }) => {
  audit.serial = params.str('serial') ?? '';
  const items = await clientOfflineRefill(rt, {
    serial: params.str('serial'),
    refilltoken: params.str('refilltoken'),
    pass: params.str('pass'),
    client,
  });
  return { value: true, members: { auth_items: items } };
};

const samlCheck: Handler = async (call) => {
  const res = await checkOf(call);
  const attributes = await samlAttributes(call.rt, res);
  return { rid: 2, value: { auth: res.value, attributes }, detail: res.detail };
};

const radiusCheck: Handler = async (call) => {
  const res = await checkOf(call);
  call.setStatus(res.value ? 204 : 400);
  return { empty: true };
};

const trigger: Handler = async ({ params, audit, context }) => {
  const res = await triggerChallenge(context(), {
    user: params.str('user'),
    realm: params.str('realm'),
    serial: params.str('serial'),
    type: params.str('type'),
  });
  Object.assign(audit, checkAuditColumns(res));
  return { rid: 2, value: res.value, detail: res.detail };
};

const poll: Handler = async ({ rt, params, audit, client, headers }) => {
  const tid = params.str('transaction_id');
  if (!tid) throw ParameterError.missing('transaction_id');
  const res = await clientPoll(rt, client, authorizationOf(headers), tid);
  Object.assign(audit, pollAuditColumns(res, tid));
  return { rid: 2, value: res.value, detail: res.detail };
};
