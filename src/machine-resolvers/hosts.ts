// hosts: the machines of a file in /etc/hosts format, one machine per line: its address (also its
// id) and its host names. `#` starts a comment; a line without a name, or whose first field is no
// IP address, is skipped (the test counts them). The file is read under the rule of src/files (an
// allowed directory, a regular file, the size limit) and again when it changes (WatchedFile); a
// missing or unreadable file is an error, never an empty list.
import { isIP } from 'node:net';
import { type AllowedFiles, WatchedFile } from '../files/index.ts';
import { type ResolverSettings, settingText } from '../resolvers/index.ts';
import {
  type Machine,
  type MachineResolverKind,
  type MachineStore,
  machineMatches,
} from './machine-store.ts';

const SETTING = 'filename';

interface HostsFile {
  machines: Machine[];
  /** Lines with content that are not a machine. */
  skipped: number;
}

/** The machines of a hosts file's text. */
export function parseHosts(text: string): HostsFile {
  const machines: Machine[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    const fields = line.replace(/#.*/, '').trim().split(/\s+/);
    if (fields[0] === '') continue;
    const [ip, ...names] = fields as [string, ...string[]];
    if (names.length === 0 || isIP(ip) === 0) {
      skipped++;
      continue;
    }
    machines.push({ id: ip, hostname: names, ip });
  }
  return { machines, skipped };
}

const fileOf = (settings: ResolverSettings) => settingText(settings, SETTING).trim();

class HostsStore implements MachineStore {
  private readonly file: WatchedFile<HostsFile>;

  constructor(path: string, files: AllowedFiles) {
    this.file = new WatchedFile(files, path, SETTING, parseHosts);
  }

  current(): HostsFile {
    return this.file.current();
  }

  async machines(filter: Parameters<MachineStore['machines']>[0]): Promise<Machine[]> {
    return this.file.current().machines.filter((m) => machineMatches(m, filter));
  }

  async close(): Promise<void> {}
}

export const hostsMachineResolver: MachineResolverKind = {
  type: 'hosts',
  settings: {
    filename: { type: 'string', description: 'File in /etc/hosts format', required: true },
  },
  validate(settings, files) {
    files.checkSetting(fileOf(settings), SETTING);
  },
  open: (settings, env) => new HostsStore(fileOf(settings), env.files),
  async test(settings, env) {
    try {
      const { machines, skipped } = new HostsStore(fileOf(settings), env.files).current();
      const notes = skipped === 0 ? '' : ` ${skipped} line(s) are not a machine and were skipped.`;
      return {
        value: true,
        description: `Found ${machines.length} machines in ${fileOf(settings)}.${notes}`,
      };
    } catch (e) {
      return { value: false, description: (e as Error).message };
    }
  },
};
