import { enrollableTypes, login } from '../../core/auth/index.ts';
import { anyRoleRoute, type RouteTable } from '../route.ts';

export function authRoutes(r: RouteTable): void {
  r.add('post', '/auth', {}, async ({ rt, params, audit, client }) => {
    audit.user = params.str('username') ?? '';
    const result = await login(rt, {
      username: params.str('username'),
      password: params.str('password'),
      realm: params.str('realm'),
      client,
      transactionId: params.str('transaction_id'),
    }).catch((e) => {
      audit.authentication = 'REJECT';
      throw e;
    });
    if ('challenge' in result) {
      audit.authentication = 'CHALLENGE';
      return { rid: 2, value: false, detail: result.challenge };
    }
    const { caller } = result;
    if (caller.role === 'admin') {
      audit.administrator = caller.username;
      audit.user = '';
    } else {
      audit.user = caller.username;
    }
    audit.realm = caller.realm;
    return {
      rid: 2,
      value: {
        ...result.settings,
        token: result.token,
        role: caller.role,
        username: caller.username,
        realm: caller.realm,
        rights: result.rights,
        menus: result.menus,
        auth: true,
      },
      ...(result.detail ? { detail: result.detail } : {}),
    };
  });
  r.add('get', '/auth/rights', anyRoleRoute(null), async ({ context }) => ({
    value: await enrollableTypes(context()),
  }));
}
