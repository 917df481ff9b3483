// /token (reference 3.3–3.5). Rights that depend on the token (its owner and realms) are checked
// in the services for every selected token (check_token_action), so most routes declare none here.
// Fixed paths (challenges, info, realm, lost, getserial) are declared before /token/:serial.
import { targetOf } from '../../core/access/index.ts';
import type { Context } from '../../core/context.ts';
import {
  assignToken,
  copyPin,
  copyUser,
  deleteExpiredChallenges,
  deleteInfoOfToken,
  deleteTokens,
  enableTokens,
  initToken,
  type ListQuery,
  listChallenges,
  listTokens,
  lostToken,
  nameList,
  requestedTokenType,
  resetTokens,
  resyncToken,
  revokeTokens,
  SETTABLE,
  type Selection,
  type Settable,
  serialByOtp,
  setDescriptions,
  setInfoOfToken,
  setPins,
  setRandomPins,
  setRealmsOfToken,
  setTokenAttributes,
  tokensCsv,
  unassignTokens,
} from '../../core/token/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { type ApiCall, adminRoute, anyRoleRoute, firing, type Handler, type RouteTable } from '../route.ts';

export function tokenRoutes(r: RouteTable): void {
  r.add('post', '/token/init', firing('token_init', PER_TOKEN), init);
  r.add('get', '/token/', firing('token_list', LIST), list);
  r.add('post', '/token/assign', firing('token_assign', PER_TOKEN), assign);
  r.add('post', both('/token/unassign'), firing('token_unassign', PER_TOKEN), onSelected(unassignTokens));
  r.add(
    'post',
    both('/token/enable'),
    firing('token_enable', PER_TOKEN),
    onSelected((ctx, sel) => enableTokens(ctx, sel, true)),
  );
  r.add(
    'post',
    both('/token/disable'),
    firing('token_disable', PER_TOKEN),
    onSelected((ctx, sel) => enableTokens(ctx, sel, false)),
  );
  r.add('post', both('/token/revoke'), firing('token_revoke', PER_TOKEN), onSelected(revokeTokens));
  r.add('post', both('/token/reset'), firing('token_reset', PER_TOKEN), onSelected(resetTokens));
  r.add('post', both('/token/resync'), firing('token_resync', PER_TOKEN), resync);
  r.add('post', both('/token/setpin'), firing('token_setpin', PER_TOKEN), setPin);
  r.add('post', both('/token/setrandompin'), firing('token_setrandompin', PER_TOKEN), setRandomPin);
  r.add('post', '/token/copypin', firing('token_copypin', adminRoute('copytokenpin')), copying(copyPin));
  r.add('post', '/token/copyuser', firing('token_copyuser', adminRoute('copytokenuser')), copying(copyUser));
  r.add('post', '/token/lost/:serial', firing('token_lost', PER_TOKEN), lost);
  r.add('get', '/token/getserial/:otp', firing('token_getserial', adminRoute('getserial')), getSerial);
  r.add('post', both('/token/description'), firing('token_set', PER_TOKEN), setDescription);
  r.add('post', both('/token/set'), firing('token_set', adminRoute(null)), setAttributes);
  r.add('post', '/token/realm/:serial', firing('token_realm', adminRoute(null)), setRealms);
  r.add('post', '/token/info/:serial/:key', firing('token_info', adminRoute(null)), setInfo);
  r.add('delete', '/token/info/:serial/:key', firing('token_info', adminRoute(null)), deleteInfo);
  r.add('delete', '/token/challenges/expired', adminRoute(null), deleteExpired);
  r.add(
    'get',
    ['/token/challenges/', '/token/challenges/:serial'],
    firing('token_getchallenges', adminRoute('getchallenges')),
    challenges,
  );
  r.add('delete', ['/token/', '/token/:serial'], firing('token_delete', PER_TOKEN), onSelected(deleteTokens));
}

/** Admins and users; the right is checked by the service for each token (see the header). */
const PER_TOKEN = anyRoleRoute(null);

// A wildcard `resolver` is only a filter, not a resolver whose realms the right is checked for
// (the listing stays limited to the realms the tokenlist right covers).
const LIST = {
  ...anyRoleRoute({ admin: 'tokenlist' }),
  target: (p: Readonly<Record<string, string>>) => {
    const t = targetOf(p);
    return t.resolver?.includes('*') ? { ...t, resolver: undefined } : t;
  },
};

/** POST on both `/token/<action>` and `/token/<action>/<serial>`. */
function both(path: string): string[] {
  return [path, `${path}/:serial`];
}

/** A positive page number or size; absent → undefined, anything else → ERR905. */
function intParam(params: Params, name: string): number | undefined {
  const v = params.str(name);
  if (v === undefined || v === '') return undefined;
  if (!/^\d{1,9}$/.test(v.trim()))
    throw new ParameterError(`'${name}' must be a positive integer, not '${v}'`);
  return Number(v);
}

/** The tokens a request selects: a serial, a list of serials, or the tokens of a user. */
function selection(params: Params): Selection {
  const raw = params.values.serials;
  return {
    serial: params.nonEmpty('serial'),
    serials:
      raw === undefined || raw === null ? undefined : typeof raw === 'string' ? raw : JSON.stringify(raw),
    user: params.nonEmpty('user'),
    realm: params.nonEmpty('realm'),
  };
}

/** The selection, noted in the audit entry. */
function audited({ params, audit }: ApiCall): Selection {
  const sel = selection(params);
  audit.serial = sel.serial ?? sel.serials ?? '';
  if (sel.user) audit.user = sel.user;
  if (sel.realm) audit.realm = sel.realm;
  return sel;
}

/** A lifecycle action on the selected tokens; its answer is the service's. */
function onSelected(run: (ctx: Context, sel: Selection) => Promise<unknown>): Handler {
  return async (call) => ({ value: await run(call.context(), audited(call)) });
}

/** /token/copypin and /token/copyuser: from one token to another. */
function copying(
  run: (ctx: Context, from: string | undefined, to: string | undefined) => Promise<boolean>,
): Handler {
  return async ({ params, context, audit }) => {
    audit.serial = params.str('to') ?? '';
    audit.info = `from ${params.str('from') ?? ''}`;
    return { value: await run(context(), params.str('from'), params.str('to')) };
  };
}

const init: Handler = async ({ params, context, audit }) => {
  const given = params.strings();
  audit.token_type = requestedTokenType(given);
  const { serial, type, detail } = await initToken(context(), given);
  audit.serial = serial;
  audit.token_type = type;
  return { value: true, detail };
};

const list: Handler = async ({ params, context }) => {
  const result = await listTokens(context(), listQuery(params));
  if ((params.str('outform') ?? '').toLowerCase() === 'csv')
    return {
      file: { name: 'privacyidea-tokendata.csv', contentType: 'text/csv', body: tokensCsv(result.tokens) },
    };
  return { value: result };
};

function listQuery(params: Params): ListQuery {
  return {
    serial: params.nonEmpty('serial'),
    type: params.nonEmpty('type'),
    user: params.nonEmpty('user'),
    realm: params.nonEmpty('realm'),
    tokenrealm: params.nonEmpty('tokenrealm'),
    description: params.nonEmpty('description'),
    assigned: params.nonEmpty('assigned'),
    active: params.nonEmpty('active'),
    rollout_state: params.nonEmpty('rollout_state'),
    type_list: params.nonEmpty('type_list'),
    userid: params.nonEmpty('userid'),
    resolver: params.nonEmpty('resolver'),
    infokey: params.nonEmpty('infokey'),
    infovalue: params.nonEmpty('infovalue'),
    container_serial: params.nonEmpty('container_serial'),
    // hidden_tokeninfo is not read: the hide_tokeninfo policy decides, as in privacyIDEA.
    sortby: params.nonEmpty('sortby'),
    sortdir: params.nonEmpty('sortdir'),
    page: intParam(params, 'page'),
    pagesize: intParam(params, 'pagesize'),
  };
}

const assign: Handler = async (call) => {
  const sel = audited(call);
  return { value: await assignToken(call.context(), { ...sel, pin: call.params.str('pin') }) };
};

const resync: Handler = async (call) => ({
  value: await resyncToken(call.context(), audited(call), call.params.str('otp1'), call.params.str('otp2')),
});

const setPin: Handler = async (call) => ({
  value: await setPins(
    call.context(),
    audited(call),
    call.params.str('otppin'),
    call.params.bool('encryptpin'),
  ),
});

const setRandomPin: Handler = async (call) => {
  const { count, pin } = await setRandomPins(call.context(), audited(call));
  return { value: count, detail: pin === undefined ? undefined : { pin } };
};

const setDescription: Handler = async (call) => ({
  value: await setDescriptions(call.context(), audited(call), call.params.str('description')),
});

const lost: Handler = async ({ params, context, audit }) => {
  const serial = params.required('serial');
  audit.serial = serial;
  return { value: await lostToken(context(), serial) };
};

const getSerial: Handler = async ({ params, context, audit }) => {
  const window = intParam(params, 'window');
  const result = await serialByOtp(context(), params.required('otp'), {
    type: params.nonEmpty('type'),
    serial: params.nonEmpty('serial'),
    assigned: params.bool('assigned'),
    unassigned: params.bool('unassigned'),
    countOnly: params.bool('count'),
    ...(window !== undefined ? { window } : {}),
  });
  audit.serial = result.serial ?? '';
  audit.info = `get ${result.serial} (${result.count})`;
  return { value: result };
};

const setAttributes: Handler = async (call) => {
  const given: Partial<Record<Settable, string>> = {};
  for (const k of SETTABLE) {
    const v = call.params.str(k);
    if (v !== undefined) given[k] = v;
  }
  call.audit.info = Object.keys(given).join(', ');
  return { value: await setTokenAttributes(call.context(), audited(call), given) };
};

const setRealms: Handler = async ({ params, context, audit }) => {
  const serial = params.required('serial');
  audit.serial = serial;
  const raw = params.values.realms;
  const realms = Array.isArray(raw) ? nameList(raw.map(String)) : nameList(params.str('realms') ?? '');
  audit.info = realms.join(', ');
  return { value: await setRealmsOfToken(context(), serial, realms) };
};

/** The serial and key of /token/info/<serial>/<key>, noted in the audit entry. */
function infoKey({ params, audit }: ApiCall): { serial: string; key: string } {
  const serial = params.required('serial');
  audit.serial = serial;
  audit.info = params.required('key');
  return { serial, key: params.required('key') };
}

const setInfo: Handler = async (call) => {
  const { serial, key } = infoKey(call);
  return { value: await setInfoOfToken(call.context(), serial, key, call.params.required('value')) };
};

const deleteInfo: Handler = async (call) => {
  const { serial, key } = infoKey(call);
  return { value: await deleteInfoOfToken(call.context(), serial, key) };
};

const deleteExpired: Handler = async ({ context }) => ({ value: await deleteExpiredChallenges(context()) });

const challenges: Handler = async ({ params, context }) => ({
  value: await listChallenges(context(), {
    serial: params.nonEmpty('serial'),
    transaction_id: params.nonEmpty('transaction_id'),
    sortby: params.nonEmpty('sortby'),
    sortdir: params.nonEmpty('sortdir'),
    page: intParam(params, 'page'),
    pagesize: intParam(params, 'pagesize'),
  }),
});
