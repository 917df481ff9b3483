// /system (reference 8.1, spec "System endpoints"): the system configuration, token defaults,
// random keys, the security module, GnuPG keys, the configuration documentation and the token
// types' tests of their configuration (/system/test/<tokentype>).
import { caConnectorNames } from '../../core/caconnector/index.ts';
import { documentation } from '../../core/documentation/index.ts';
import { gpgKeys } from '../../core/gpg/index.ts';
import { radiusServerNames } from '../../core/radiusserver/index.ts';
import {
  type ConfigEntry,
  deleteConfig,
  getConfigValue,
  hsmStatus,
  hsmUnlock,
  listConfig,
  randomKey,
  setConfig,
  setDefaults,
} from '../../core/system/index.ts';
import { testTokenConfig } from '../../core/token/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { adminRoute, anyRoleRoute, type Handler, type RouteTable } from '../route.ts';

export function systemRoutes(r: RouteTable): void {
  r.add('get', '/system/documentation', adminRoute('system_documentation'), documentationFile);
  r.add('get', '/system/gpgkeys', anyRoleRoute(null), gpg);
  r.add('get', '/system/random', adminRoute('getrandom'), random);
  r.add('get', '/system/hsm', adminRoute(null), hsm);
  r.add('post', '/system/hsm', adminRoute('set_hsm_password'), unlockHsm);
  r.add('post', '/system/setConfig', adminRoute('configwrite'), set);
  r.add('post', '/system/setDefault', adminRoute('configwrite'), setDefault);
  r.add('post', '/system/test/:tokentype', adminRoute('configwrite'), testTokenType);
  r.add('get', '/system/', anyRoleRoute({ admin: 'configread' }), list);
  r.add('get', '/system/names/radius', anyRoleRoute('enrollRADIUS'), radiusNames);
  r.add('get', '/system/names/caconnector', anyRoleRoute('enrollCERTIFICATE'), caNames);
  r.add('get', '/system/:key', anyRoleRoute({ admin: 'configread' }), get);
  r.add('delete', '/system/:key', adminRoute('configdelete'), remove);
}

const documentationFile: Handler = async ({ context }) => ({
  file: { name: 'documentation.rst', contentType: 'text/plain', body: await documentation(context()) },
});

const gpg: Handler = async ({ context }) => ({ value: await gpgKeys(context()) });

const random: Handler = ({ rt, params }) => ({
  value: randomKey(rt, params.str('len'), params.str('encode')),
});

const hsm: Handler = ({ context }) => ({ value: hsmStatus(context()) });

const unlockHsm: Handler = ({ params, context }) => ({ value: hsmUnlock(context(), params.str('password')) });

const set: Handler = async ({ params, context, audit }) => {
  const entries = configEntries(params);
  audit.info = entries.map((e) => e.key).join(', ');
  await setConfig(context(), entries);
  return { value: true };
};

/** POST /system/test/<tokentype>: the type's test of its configuration (e-mail: a test mail). */
const testTokenType: Handler = async ({ params, context, audit }) => {
  const type = params.required('tokentype');
  audit.info = type;
  const result = await testTokenConfig(context(), type, params.strings());
  return { value: result.value, detail: { message: result.description } };
};

const setDefault: Handler = async ({ params, context, audit }) => {
  const given = params.strings();
  delete given.nonce;
  audit.info = Object.keys(given).join(', ');
  await setDefaults(context(), given);
  return { value: true };
};

const list: Handler = async ({ context }) => ({ value: await listConfig(context()) });

/** GET /system/names/radius: the identifiers of the RADIUS server definitions (for enrollment). */
const radiusNames: Handler = async ({ rt }) => ({ value: await radiusServerNames(rt) });

/** GET /system/names/caconnector: the CA connectors' names, types and templates (for enrollment). */
const caNames: Handler = async ({ rt }) => ({ value: await caConnectorNames(rt) });

const get: Handler = async ({ params, context }) => ({
  value: await getConfigValue(context(), params.required('key')),
});

const remove: Handler = async ({ params, context, audit }) => {
  audit.info = params.required('key');
  return { value: await deleteConfig(context(), params.required('key')) };
};

const NOT_CONFIG = new Set(['nonce']);

/** Both forms of setConfig: key/value/type/description, or generic name=value with name.type/name.desc. */
function configEntries(params: Params): ConfigEntry[] {
  const all = params.strings();
  if (all.key !== undefined) {
    if (all.value === undefined) throw ParameterError.missing('value');
    return [{ key: all.key, value: all.value, type: all.type, description: all.description }];
  }
  const entries: ConfigEntry[] = [];
  for (const [name, value] of Object.entries(all)) {
    if (NOT_CONFIG.has(name)) continue;
    const attribute = /^(.*)\.(type|desc)$/.exec(name);
    if (attribute) {
      // Own keys only: `constructor.type` must not find Object's constructor.
      if (!Object.hasOwn(all, attribute[1]!)) {
        throw new ParameterError(`'${name}' is given without '${attribute[1]}'`);
      }
      continue;
    }
    entries.push({ key: name, value, type: all[`${name}.type`], description: all[`${name}.desc`] });
  }
  return entries;
}
