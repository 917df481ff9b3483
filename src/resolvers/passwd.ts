// passwdresolver: users of a file in /etc/passwd format. The file is read again when it changes
// (checked at most once a second, src/files' WatchedFile), so edits need no restart. It is opened
// under the rule of src/files (an allowed directory, a regular file, the size limit) every time it
// is looked at.
import { decoyLike, verifyCryptHash } from '../crypto/index.ts';
import { type AllowedFiles, WatchedFile } from '../files/index.ts';
import { wildcardMatcher } from '../wildcard.ts';
import { settingText } from './settings.ts';
import type { ResolverKind, ResolverSettings, UserRecord, UserSearch, UserStore } from './user-store.ts';

interface PasswdUser {
  record: UserRecord;
  hash: string;
}

const SETTING = 'Filename';

function fileOf(settings: ResolverSettings): string {
  return (
    settingText(settings, 'Filename') ||
    settingText(settings, 'fileName') ||
    settingText(settings, 'filename') ||
    '/etc/passwd'
  );
}

/**
 * One line `login:hash:uid:gid:GECOS:home:shell` → a user. GECOS as privacyIDEA reads it: the
 * first entry is the name (given name up to the first space, surname after it); with at least four
 * entries the 3rd is `mobile` and the 4th `phone`; `email` is the first entry from the 5th on that
 * looks like an e-mail address; `description` is the whole GECOS field.
 */
export function parsePasswdLine(line: string): PasswdUser | undefined {
  if (line.trim() === '' || line.startsWith('#')) return undefined;
  const f = line.split(':');
  if (f.length < 7 || f[0] === '') return undefined;
  const gecos = f[4]!.split(',');
  const name = (gecos[0] ?? '').trim();
  const space = name.indexOf(' ');
  const phones = gecos.length >= 4;
  const record: UserRecord = {
    userid: f[2]!,
    username: f[0]!,
    givenname: space < 0 ? name : name.slice(0, space),
    surname: space < 0 ? '' : name.slice(space + 1),
    phone: phones ? gecos[3]! : '',
    mobile: phones ? gecos[2]! : '',
    email:
      gecos
        .slice(4)
        .map((g) => g.trim())
        .find((g) => /^\S+@\S+\.\S+$/.test(g)) ?? '',
    description: f[4]!,
  };
  return { record, hash: f[1]! };
}

/**
 * privacyIDEA's numeric userid searches: `=1000`, `>=1000`, `<2000`, `between 1000,2000`; any other
 * pattern is a `*` wildcard like every other field.
 */
function useridMatcher(pattern: string): ((value: string | undefined) => boolean) | undefined {
  const between = /^\s*between\s*(-?\d+)\s*,\s*(-?\d+)\s*$/i.exec(pattern);
  if (between) {
    const [lo, hi] = [Number(between[1]), Number(between[2])].sort((a, b) => a - b) as [number, number];
    return (v) => v !== undefined && /^-?\d+$/.test(v) && Number(v) >= lo && Number(v) <= hi;
  }
  const cmp = /^\s*(>=|<=|>|<|=)\s*(-?\d+)\s*$/.exec(pattern);
  if (!cmp) return undefined;
  const n = Number(cmp[2]);
  const test = {
    '>=': (u: number) => u >= n,
    '<=': (u: number) => u <= n,
    '>': (u: number) => u > n,
    '<': (u: number) => u < n,
    '=': (u: number) => u === n,
  }[cmp[1]!]!;
  return (v) => v !== undefined && /^-?\d+$/.test(v) && test(Number(v));
}

const idAndLogin = (userid: string, login: string) => `${userid}\n${login}`;

/** The users of one reading of the file, with the maps that find them. */
interface PasswdIndex {
  users: PasswdUser[];
  /**
   * The first entry of each login, of each uid, and of each (uid, login) pair: a lookup is one map
   * access instead of a scan of the file's lines (thousands of users: about half a millisecond per
   * login and per token owner on a page). The first entry wins, as it does for getpwnam.
   */
  byLogin: Map<string, PasswdUser>;
  byId: Map<string, PasswdUser>;
  byIdAndLogin: Map<string, PasswdUser>;
  /** The first user's hash that costs something to check (checkPasswordOfNobody imitates it). */
  costly: string | undefined;
}

function indexPasswd(text: string): PasswdIndex {
  const users: PasswdUser[] = [];
  for (const line of text.split('\n')) {
    const u = parsePasswdLine(line);
    if (u) users.push(u);
  }
  const first = <K>(m: Map<K, PasswdUser>, k: K, u: PasswdUser) => void (m.has(k) || m.set(k, u));
  const byLogin = new Map<string, PasswdUser>();
  const byId = new Map<string, PasswdUser>();
  const byIdAndLogin = new Map<string, PasswdUser>();
  for (const u of users) {
    first(byLogin, u.record.username, u);
    first(byId, u.record.userid, u);
    first(byIdAndLogin, idAndLogin(u.record.userid, u.record.username), u);
  }
  const costly = users.find((u) => decoyLike(u.hash) !== undefined)?.hash;
  return { users, byLogin, byId, byIdAndLogin, costly };
}

class PasswdStore implements UserStore {
  readonly editable = false;
  /** Read again when it changes (WatchedFile), under the rule of src/files. */
  private readonly file: WatchedFile<PasswdIndex>;

  constructor(file: string, files: AllowedFiles) {
    this.file = new WatchedFile(files, file, SETTING, indexPasswd);
  }

  async findByLogin(login: string): Promise<UserRecord | undefined> {
    return this.file.current().byLogin.get(login)?.record;
  }

  async findById(userid: string): Promise<UserRecord | undefined> {
    return this.file.current().byId.get(userid)?.record;
  }

  async search(filter: UserSearch, limit: number): Promise<UserRecord[]> {
    const tests = Object.entries(filter).map(
      ([k, v]) => [k, (k === 'userid' && useridMatcher(v)) || wildcardMatcher(v)] as const,
    );
    const out: UserRecord[] = [];
    for (const { record } of this.file.current().users) {
      if (
        tests.every(([k, test]) => test(typeof record[k] === 'string' ? (record[k] as string) : undefined))
      ) {
        out.push(record);
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  async checkPassword(user: UserRecord, password: string): Promise<boolean> {
    const entry = this.file.current().byIdAndLogin.get(idAndLogin(user.userid, user.username));
    return entry !== undefined && (await verifyCryptHash(entry.hash, password));
  }

  /** A check against a decoy of the first costly hash of the file: as slow as a wrong password. */
  async checkPasswordOfNobody(password: string): Promise<void> {
    const { costly } = this.file.current();
    const decoy = costly === undefined ? undefined : decoyLike(costly);
    if (decoy !== undefined) await verifyCryptHash(decoy, password);
  }

  async close(): Promise<void> {}
}

export const passwdResolver: ResolverKind = {
  type: 'passwdresolver',
  settings: {
    Filename: {
      type: 'string',
      description: 'File in /etc/passwd format',
      default: '/etc/passwd',
      aliases: ['fileName', 'filename'],
    },
  },
  validate(settings, files) {
    files.checkSetting(fileOf(settings), SETTING);
  },
  open: (settings, env) => new PasswdStore(fileOf(settings), env.files),
  async test(settings, env) {
    const store = new PasswdStore(fileOf(settings), env.files);
    const n = (await store.search({}, Number.MAX_SAFE_INTEGER)).length;
    return { value: true, description: `Found ${n} users in ${fileOf(settings)}.` };
  },
};
