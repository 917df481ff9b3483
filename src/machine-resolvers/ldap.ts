// ldap: the machines of an LDAP directory (Active Directory computer objects, ipHost entries …),
// with the settings of privacyIDEA's LdapMachineResolver. The connection (server pool, bind, TLS,
// time limits, paged searches) is the user store's own (src/resolvers/ldap), not a copy; this file
// only says which entries are machines and which attributes are the id, the host names and the
// address. The filters of GET /machine/ go to the server as LDAP filters (values escaped), except a
// substring of the DN as id, which LDAP cannot search and which is matched here.
import type { Entry } from 'ldapts';
import { ParameterError } from '../errors.ts';
import type { AllowedFiles } from '../files/index.ts';
import {
  andFilter,
  attributeName,
  checkedSearchFilter,
  Directory,
  equalityFilter,
  LDAP_CONNECTION_SETTINGS,
  type LdapConnectionConfig,
  orFilter,
  parseConnectionConfig,
  type ResolverSettings,
  type SettingSpec,
  type StoreEnvironment,
  settingInt,
  settingText,
  substringFilter as substring,
} from '../resolvers/index.ts';
import {
  type Machine,
  type MachineFilter,
  type MachineResolverKind,
  type MachineStore,
  machineMatches,
} from './machine-store.ts';

const DEFAULT_FILTER = '(objectClass=computer)';

interface LdapMachineConfig extends LdapConnectionConfig {
  sizeLimit: number;
  searchFilter: string;
  /** `DN` or an attribute name. */
  idAttribute: string;
  hostnameAttribute: string;
  /** undefined: the machines have no address. */
  ipAttribute: string | undefined;
}

const SETTINGS: Record<string, SettingSpec> = {
  ...LDAP_CONNECTION_SETTINGS,
  LDAPBASE: { type: 'string', description: 'Base DN of the machine search', required: true },
  SIZELIMIT: { type: 'int', description: 'Maximum number of machines a search returns', default: '500' },
  SEARCHFILTER: {
    type: 'string',
    description: 'Filters AND-ed to every search, e.g. (objectClass=computer)',
    default: DEFAULT_FILTER,
  },
  IDATTRIBUTE: { type: 'string', description: 'DN, or the attribute holding the machine id', default: 'DN' },
  HOSTNAMEATTRIBUTE: {
    type: 'string',
    description: 'Attribute holding the host name(s), e.g. dNSHostName or cn',
    required: true,
  },
  IPATTRIBUTE: { type: 'string', description: 'Attribute holding the IP address, e.g. ipHostNumber' },
  NOREFERRALS: { type: 'bool', description: 'Accepted for compatibility; referrals are never followed' },
  EDITABLE: { type: 'bool', description: 'Accepted for compatibility; machines are never edited' },
};

function parseMachineConfig(s: ResolverSettings, files: AllowedFiles): LdapMachineConfig {
  const id = settingText(s, 'IDATTRIBUTE').trim();
  const ip = settingText(s, 'IPATTRIBUTE').trim();
  const hostname = settingText(s, 'HOSTNAMEATTRIBUTE').trim();
  if (hostname === '') throw ParameterError.missing('HOSTNAMEATTRIBUTE');
  return {
    ...parseConnectionConfig(s, files),
    sizeLimit: settingInt(s, 'SIZELIMIT', 500, 1),
    searchFilter: checkedSearchFilter(
      settingText(s, 'SEARCHFILTER').trim() || DEFAULT_FILTER,
      'SEARCHFILTER',
    ),
    idAttribute: id === '' || id.toLowerCase() === 'dn' ? 'DN' : attributeName('IDATTRIBUTE', id),
    hostnameAttribute: attributeName('HOSTNAMEATTRIBUTE', hostname),
    ipAttribute: ip === '' ? undefined : attributeName('IPATTRIBUTE', ip),
  };
}

function values(entry: Entry, attribute: string): string[] {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const v = key === undefined ? undefined : entry[key];
  const list = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return list.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
}

class LdapMachineStore implements MachineStore {
  private readonly cfg: LdapMachineConfig;
  private readonly directory: Directory;

  constructor(cfg: LdapMachineConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.directory = new Directory(cfg, env);
  }

  /** The LDAP filter of the request's filters (a DN id substring is matched afterwards). */
  private filterOf(f: MachineFilter): string {
    const { idAttribute: id, hostnameAttribute: host, ipAttribute: ip } = this.cfg;
    const terms: string[] = [];
    if (f.id && id !== 'DN') terms.push(substring(id, f.id));
    if (f.hostname) terms.push(substring(host, f.hostname));
    if (f.ip) terms.push(ip ? equalityFilter(ip, f.ip)! : '(!(objectClass=*))');
    if (f.any) {
      const attrs = [host, ...(id !== 'DN' ? [id] : []), ...(ip ? [ip] : [])];
      // A DN that contains the value cannot be searched for: such machines are found by the others.
      terms.push(orFilter(attrs.map((a) => substring(a, f.any!))));
    }
    return andFilter(this.cfg.searchFilter, ...terms);
  }

  private toMachine(entry: Entry): Machine | undefined {
    const id = this.cfg.idAttribute === 'DN' ? entry.dn : values(entry, this.cfg.idAttribute)[0];
    if (id === undefined) return undefined;
    const ip = this.cfg.ipAttribute ? (values(entry, this.cfg.ipAttribute)[0] ?? '') : '';
    return { id, hostname: values(entry, this.cfg.hostnameAttribute), ip };
  }

  async machines(filter: MachineFilter): Promise<Machine[]> {
    const attributes = [this.cfg.hostnameAttribute];
    if (this.cfg.idAttribute !== 'DN') attributes.push(this.cfg.idAttribute);
    if (this.cfg.ipAttribute) attributes.push(this.cfg.ipAttribute);
    const entries = await this.directory.pagedSearch(
      this.cfg.base,
      { scope: 'sub', filter: this.filterOf(filter), attributes },
      this.cfg.sizeLimit,
    );
    const machines = entries.map((e) => this.toMachine(e)).filter((m) => m !== undefined);
    const dnId = this.cfg.idAttribute === 'DN' && filter.id ? filter.id : undefined;
    return dnId ? machines.filter((m) => machineMatches(m, { id: dnId })) : machines;
  }

  async close(): Promise<void> {
    await this.directory.close();
  }
}

export const ldapMachineResolver: MachineResolverKind = {
  type: 'ldap',
  settings: SETTINGS,
  validate(settings, files) {
    parseMachineConfig(settings, files);
  },
  open: (settings, env) => new LdapMachineStore(parseMachineConfig(settings, env.files), env),
  async test(settings, env) {
    let store: LdapMachineStore | undefined;
    try {
      store = new LdapMachineStore(parseMachineConfig(settings, env.files), env);
      const n = (await store.machines({})).length;
      return { value: true, description: `Your LDAP config seems to be OK, ${n} machine objects found.` };
    } catch (e) {
      return { value: false, description: e instanceof Error ? e.message : String(e) };
    } finally {
      await store?.close();
    }
  },
};
