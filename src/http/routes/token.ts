// /token (reference 3.3–3.5). Rights that depend on the token (its owner and realms) are checked
// in the services for every selected token (check_token_action), so most routes declare none here.
// Fixed paths (challenges, info, realm, lost, getserial) are declared before /token/:serial.
import { targetOf } from '../../core/access/index.ts';
import {
  assignToken,
  copyPin,
  copyUser,
  deleteExpiredChallenges,
  deleteInfoOfToken,
  deleteTokens,
  enableTokens,
  initToken,
  listChallenges,
  listTokens,
  lostToken,
  nameList,
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
import { type ApiCall, adminRoute, anyRoleRoute, type RouteTable } from '../route.ts';

/** A positive page number or size; absent → undefined, anything else → ERR905. */
function intParam(params: Params, name: string): number | undefined {
  const v = params.str(name);
  if (v === undefined || v === '') return undefined;
  if (!/^\d{1,9}$/.test(v.trim()))
    throw new ParameterError(`'${name}' must be a positive integer, not '${v}'`);
  return Number(v);
}

function selection(params: Params): Selection {
  const raw = params.values.serials;
  return {
    serial: params.str('serial') || undefined,
    serials:
      raw === undefined || raw === null ? undefined : typeof raw === 'string' ? raw : JSON.stringify(raw),
    user: params.str('user') || undefined,
    realm: params.str('realm') || undefined,
  };
}

function audited({ params, audit }: ApiCall): Selection {
  const sel = selection(params);
  audit.serial = sel.serial ?? sel.serials ?? '';
  if (sel.user) audit.user = sel.user;
  if (sel.realm) audit.realm = sel.realm;
  return sel;
}

/** POST on both `/token/<action>` and `/token/<action>/<serial>`. */
function both(path: string): string[] {
  return [path, `${path}/:serial`];
}

export function tokenRoutes(r: RouteTable): void {
  r.add('post', '/token/init', anyRoleRoute(null), async ({ params, context, audit }) => {
    const given = params.strings();
    audit.token_type = given.type || 'hotp';
    const { serial, detail } = await initToken(context(), given);
    audit.serial = serial;
    return { value: true, detail };
  });

  // A wildcard `resolver` is only a filter, not a resolver whose realms the right is checked for
  // (the listing stays limited to the realms the tokenlist right covers).
  const listRoute = {
    ...anyRoleRoute({ admin: 'tokenlist' }),
    target: (p: Readonly<Record<string, string>>) => {
      const t = targetOf(p);
      return t.resolver?.includes('*') ? { ...t, resolver: undefined } : t;
    },
  };
  r.add('get', '/token/', listRoute, async ({ params, context }) => {
    const result = await listTokens(context(), {
      serial: params.str('serial') || undefined,
      type: params.str('type') || undefined,
      user: params.str('user') || undefined,
      realm: params.str('realm') || undefined,
      tokenrealm: params.str('tokenrealm') || undefined,
      description: params.str('description') || undefined,
      assigned: params.str('assigned') || undefined,
      active: params.str('active') || undefined,
      rollout_state: params.str('rollout_state') || undefined,
      type_list: params.str('type_list') || undefined,
      userid: params.str('userid') || undefined,
      resolver: params.str('resolver') || undefined,
      infokey: params.str('infokey') || undefined,
      infovalue: params.str('infovalue') || undefined,
      container_serial: params.str('container_serial') || undefined,
      // hidden_tokeninfo is not read: the hide_tokeninfo policy decides, as in privacyIDEA.
      sortby: params.str('sortby') || undefined,
      sortdir: params.str('sortdir') || undefined,
      page: intParam(params, 'page'),
      pagesize: intParam(params, 'pagesize'),
    });
    if ((params.str('outform') ?? '').toLowerCase() === 'csv')
      return {
        file: { name: 'privacyidea-tokendata.csv', contentType: 'text/csv', body: tokensCsv(result.tokens) },
      };
    return { value: result };
  });

  r.add('post', '/token/assign', anyRoleRoute(null), async (call) => {
    const sel = audited(call);
    return {
      value: await assignToken(call.context(), { ...sel, pin: call.params.str('pin') }),
    };
  });
  r.add('post', both('/token/unassign'), anyRoleRoute(null), async (call) => ({
    value: await unassignTokens(call.context(), audited(call)),
  }));
  r.add('post', both('/token/enable'), anyRoleRoute(null), async (call) => ({
    value: await enableTokens(call.context(), audited(call), true),
  }));
  r.add('post', both('/token/disable'), anyRoleRoute(null), async (call) => ({
    value: await enableTokens(call.context(), audited(call), false),
  }));
  r.add('post', both('/token/revoke'), anyRoleRoute(null), async (call) => ({
    value: await revokeTokens(call.context(), audited(call)),
  }));
  r.add('post', both('/token/reset'), anyRoleRoute(null), async (call) => ({
    value: await resetTokens(call.context(), audited(call)),
  }));
  r.add('post', both('/token/resync'), anyRoleRoute(null), async (call) => ({
    value: await resyncToken(call.context(), audited(call), call.params.str('otp1'), call.params.str('otp2')),
  }));
  r.add('post', both('/token/setpin'), anyRoleRoute(null), async (call) => ({
    value: await setPins(
      call.context(),
      audited(call),
      call.params.str('otppin'),
      call.params.bool('encryptpin'),
    ),
  }));
  r.add('post', both('/token/setrandompin'), anyRoleRoute(null), async (call) => {
    const { count, pin } = await setRandomPins(call.context(), audited(call));
    return { value: count, detail: { pin } };
  });
  r.add('post', '/token/copypin', adminRoute('copytokenpin'), async ({ params, context, audit }) => {
    audit.serial = params.str('to') ?? '';
    audit.info = `from ${params.str('from') ?? ''}`;
    return { value: await copyPin(context(), params.str('from'), params.str('to')) };
  });
  r.add('post', '/token/copyuser', adminRoute('copytokenuser'), async ({ params, context, audit }) => {
    audit.serial = params.str('to') ?? '';
    audit.info = `from ${params.str('from') ?? ''}`;
    return { value: await copyUser(context(), params.str('from'), params.str('to')) };
  });
  r.add('post', '/token/lost/:serial', anyRoleRoute(null), async ({ params, context, audit }) => {
    const serial = params.required('serial');
    audit.serial = serial;
    return { value: await lostToken(context(), serial) };
  });
  r.add('get', '/token/getserial/:otp', adminRoute('getserial'), async ({ params, context, audit }) => {
    const window = intParam(params, 'window');
    const result = await serialByOtp(context(), params.required('otp'), {
      type: params.str('type') || undefined,
      serial: params.str('serial') || undefined,
      assigned: params.bool('assigned'),
      unassigned: params.bool('unassigned'),
      countOnly: params.bool('count'),
      ...(window !== undefined ? { window } : {}),
    });
    audit.serial = result.serial ?? '';
    audit.info = `get ${result.serial} (${result.count})`;
    return { value: result };
  });
  r.add('post', both('/token/description'), anyRoleRoute(null), async (call) => ({
    value: await setDescriptions(call.context(), audited(call), call.params.str('description')),
  }));
  r.add('post', both('/token/set'), adminRoute(null), async (call) => {
    const given: Partial<Record<Settable, string>> = {};
    for (const k of SETTABLE) {
      const v = call.params.str(k);
      if (v !== undefined) given[k] = v;
    }
    call.audit.info = Object.keys(given).join(', ');
    return { value: await setTokenAttributes(call.context(), audited(call), given) };
  });
  r.add('post', '/token/realm/:serial', adminRoute(null), async (call) => {
    const serial = call.params.required('serial');
    call.audit.serial = serial;
    const raw = call.params.values.realms;
    const realms = Array.isArray(raw) ? nameList(raw.map(String)) : nameList(call.params.str('realms') ?? '');
    call.audit.info = realms.join(', ');
    return { value: await setRealmsOfToken(call.context(), serial, realms) };
  });
  r.add('post', '/token/info/:serial/:key', adminRoute(null), async ({ params, context, audit }) => {
    const serial = params.required('serial');
    audit.serial = serial;
    audit.info = params.required('key');
    return {
      value: await setInfoOfToken(context(), serial, params.required('key'), params.required('value')),
    };
  });
  r.add('delete', '/token/info/:serial/:key', adminRoute(null), async ({ params, context, audit }) => {
    const serial = params.required('serial');
    audit.serial = serial;
    audit.info = params.required('key');
    return { value: await deleteInfoOfToken(context(), serial, params.required('key')) };
  });

  r.add('delete', '/token/challenges/expired', adminRoute(null), async ({ context }) => ({
    value: await deleteExpiredChallenges(context()),
  }));
  r.add(
    'get',
    ['/token/challenges/', '/token/challenges/:serial'],
    adminRoute('getchallenges'),
    async ({ params, context }) => ({
      value: await listChallenges(context(), {
        serial: params.str('serial') || undefined,
        transaction_id: params.str('transaction_id') || undefined,
        sortby: params.str('sortby') || undefined,
        sortdir: params.str('sortdir') || undefined,
        page: intParam(params, 'page'),
        pagesize: intParam(params, 'pagesize'),
      }),
    }),
  );

  r.add('delete', ['/token/', '/token/:serial'], anyRoleRoute(null), async (call) => ({
    value: await deleteTokens(call.context(), audited(call)),
  }));
}
