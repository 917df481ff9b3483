// The one interface every machine resolver kind implements (a hosts file, an LDAP directory): the
// description of its settings (shared with the user stores, src/resolvers/settings-kind.ts) and the
// machines it lists. The services above know only this file; adding a kind is adding one file and
// one line in registry.ts.
import type { ResolverSettings, SettingsKind, StoreEnvironment } from '../resolvers/index.ts';

/** A machine as GET /machine/ shows it, without the resolver's name (the service adds it). */
export interface Machine {
  /** The machine's id in its resolver (hosts: the address as written; LDAP: the DN or IDATTRIBUTE). */
  id: string;
  hostname: string[];
  /** '' when the resolver knows no address. */
  ip: string;
}

/** The filters of GET /machine/: substrings of the id and hostnames, the exact address, `any`. */
export interface MachineFilter {
  id?: string | undefined;
  hostname?: string | undefined;
  ip?: string | undefined;
  /** A substring of the id, of a hostname or of the address. */
  any?: string | undefined;
}

export interface MachineStore {
  /** The machines matching the filter (a kind may ask its source to filter). */
  machines(filter: MachineFilter): Promise<Machine[]>;
  /** Releases connections. */
  close(): Promise<void>;
}

export interface MachineResolverKind extends SettingsKind {
  open(settings: ResolverSettings, env: StoreEnvironment): MachineStore;
}

/** privacyIDEA's matching of a machine against the filters (substrings are case-sensitive). */
export function machineMatches(m: Machine, f: MachineFilter): boolean {
  if (f.id && !m.id.includes(f.id)) return false;
  const hostname = f.hostname;
  if (hostname && !m.hostname.some((h) => h.includes(hostname))) return false;
  if (f.ip && m.ip !== f.ip) return false;
  const any = f.any;
  if (any && !m.id.includes(any) && !m.ip.includes(any) && !m.hostname.some((h) => h.includes(any))) {
    return false;
  }
  return true;
}
