// passwdresolver: users of a file in /etc/passwd format. The file is read again when it changes
// (checked at most once a second), so edits need no restart. It is opened under the rule of
// src/files (an allowed directory, a regular file, the size limit) every time it is looked at.
import { decoyLike, verifyCryptHash } from '../crypto/index.ts';
import type { AllowedFiles } from '../files/index.ts';
import { wildcardMatcher } from '../wildcard.ts';
import { settingText } from './settings.ts';
import type { ResolverKind, ResolverSettings, UserRecord, UserSearch, UserStore } from './user-store.ts';

interface PasswdUser {
  record: UserRecord;
  hash: string;
}

const RECHECK_MS = 1000;
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

class PasswdStore implements UserStore {
  readonly editable = false;
  private readonly file: string;
  private readonly files: AllowedFiles;
  private users: PasswdUser[] = [];
  /**
   * The first entry of each login, of each uid, and of each (uid, login) pair: a lookup is one map
   * access instead of a scan of the file's lines (thousands of users: about half a millisecond per
   * login and per token owner on a page). The first entry wins, as it does for getpwnam.
   */
  private byLogin = new Map<string, PasswdUser>();
  private byId = new Map<string, PasswdUser>();
  private byIdAndLogin = new Map<string, PasswdUser>();
  /** The first user's hash that costs something to check (checkPasswordOfNobody imitates it). */
  private costly: string | undefined;
  private stamp = '';
  private checkedAt = 0;
  /** Why the file was refused at the last look: every use fails with it until a look succeeds. */
  private refused: Error | undefined;

  constructor(file: string, files: AllowedFiles) {
    this.file = file;
    this.files = files;
    this.reload();
  }

  /** Reads the file when it is not the one read last time (another inode, size or change time). */
  private reload(): void {
    const file = this.files.open(this.file, SETTING);
    let text: string;
    try {
      const st = file.stats;
      const stamp = `${st.dev}:${st.ino}:${st.mtimeMs}:${st.size}`;
      if (stamp === this.stamp) return;
      text = file.read().toString('utf8');
      this.stamp = stamp;
    } finally {
      file.close();
    }
    this.index(text);
  }

  private index(text: string): void {
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
    this.users = users;
    this.byLogin = byLogin;
    this.byId = byId;
    this.byIdAndLogin = byIdAndLogin;
    this.costly = users.find((u) => decoyLike(u.hash) !== undefined)?.hash;
  }

  /**
   * Reads the file again when it changed (looked at most every RECHECK_MS). A file refused at a
   * look (replaced by a link out of the allowed directories, grown too big …) refuses every use
   * until a later look finds it right again: no user of the earlier file is served meanwhile.
   */
  private refresh(): void {
    const now = Date.now();
    if (now - this.checkedAt >= RECHECK_MS) {
      this.checkedAt = now;
      try {
        this.reload();
        this.refused = undefined;
      } catch (e) {
        this.refused = e as Error;
      }
    }
    if (this.refused) throw this.refused;
  }

  private current(): PasswdUser[] {
    this.refresh();
    return this.users;
  }

  async findByLogin(login: string): Promise<UserRecord | undefined> {
    this.refresh();
    return this.byLogin.get(login)?.record;
  }

  async findById(userid: string): Promise<UserRecord | undefined> {
    this.refresh();
    return this.byId.get(userid)?.record;
  }

  async search(filter: UserSearch, limit: number): Promise<UserRecord[]> {
    const tests = Object.entries(filter).map(
      ([k, v]) => [k, (k === 'userid' && useridMatcher(v)) || wildcardMatcher(v)] as const,
    );
    const out: UserRecord[] = [];
    for (const { record } of this.current()) {
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
    this.refresh();
    const entry = this.byIdAndLogin.get(idAndLogin(user.userid, user.username));
    return entry !== undefined && (await verifyCryptHash(entry.hash, password));
  }

  /** A check against a decoy of the first costly hash of the file: as slow as a wrong password. */
  async checkPasswordOfNobody(password: string): Promise<void> {
    this.refresh();
    const decoy = this.costly === undefined ? undefined : decoyLike(this.costly);
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
