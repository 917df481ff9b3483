// /validate (reference 4, spec "Validate"): check, samlcheck, radiuscheck, triggerchallenge,
// polltransaction. Public except triggerchallenge; every answer carries id 2 and
// result.authentication.
import type { AuditEntry } from '../../core/audit/index.ts';
import type { ClientSeen } from '../../core/client/index.ts';
import {
  answerOf,
  type CheckAudit,
  type CheckInput,
  checkApiKey,
  clientCheck,
  pollTransaction,
  samlAttributes,
  triggerChallenge,
} from '../../core/validate/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { adminRoute, type RouteTable } from '../route.ts';

/**
 * The User-Agent as far as a handler sees it: the audit entry's product and version (the route
 * table does not hand handlers the request headers).
 */
type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v || undefined;
}

/** The whole User-Agent string, as the client table keeps it. */
function userAgentOf(headers: Headers): string | undefined {
  return header(headers, 'user-agent');
}

/** The raw JWT for api_key_required: PI-Authorization, then Authorization. */
function authorizationOf(headers: Headers): string | undefined {
  return header(headers, 'pi-authorization') ?? header(headers, 'authorization');
}

/** The client application of a check, which the check records. */
function clientOf(client: string, headers: Headers): ClientSeen {
  return { ip: client, userAgent: userAgentOf(headers) };
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
    apiKey: { authorization: authorizationOf(headers) },
  };
}

function recordAudit(audit: AuditEntry, a: CheckAudit): void {
  audit.user = a.user;
  audit.realm = a.realm;
  audit.resolver = a.resolver;
  audit.serial = a.serial;
  audit.token_type = a.tokenType;
  audit.info = a.info;
}

export function validateRoutes(r: RouteTable): void {
  const methods: ('get' | 'post')[] = ['get', 'post'];

  r.add(methods, '/validate/check', {}, async ({ rt, params, audit, client, headers }) => {
    const res = await clientCheck(rt, clientOf(client, headers), () => checkInput(params, audit, headers));
    recordAudit(audit, res.audit);
    return { rid: 2, value: res.value, detail: res.detail };
  });

  r.add(methods, '/validate/samlcheck', {}, async ({ rt, params, audit, client, headers }) => {
    const res = await clientCheck(rt, clientOf(client, headers), () => checkInput(params, audit, headers));
    recordAudit(audit, res.audit);
    const attributes = await samlAttributes(rt, res);
    return { rid: 2, value: { auth: res.value, attributes }, detail: res.detail };
  });

  r.add(methods, '/validate/radiuscheck', {}, async ({ rt, params, audit, client, headers, setStatus }) => {
    const res = await clientCheck(rt, clientOf(client, headers), () => checkInput(params, audit, headers));
    recordAudit(audit, res.audit);
    audit.authentication = answerOf(res);
    setStatus(res.value ? 204 : 400);
    return { empty: true };
  });

  r.add(
    methods,
    '/validate/triggerchallenge',
    adminRoute('triggerchallenge'),
    async ({ params, audit, context }) => {
      const res = await triggerChallenge(context(), {
        user: params.str('user'),
        realm: params.str('realm'),
        serial: params.str('serial'),
        type: params.str('type'),
      });
      recordAudit(audit, res.audit);
      return { rid: 2, value: res.value, detail: res.detail };
    },
  );

  r.add(
    'get',
    ['/validate/polltransaction', '/validate/polltransaction/:transaction_id'],
    {},
    async ({ rt, params, audit, client, headers }) => {
      const tid = params.str('transaction_id');
      if (!tid) throw ParameterError.missing('transaction_id');
      await checkApiKey(rt, client, authorizationOf(headers));
      const answered = await pollTransaction(rt, tid);
      audit.info = `transaction_id: ${tid}`;
      return { rid: 2, value: answered, detail: { challenge_status: answered ? 'accept' : 'pending' } };
    },
  );
}
