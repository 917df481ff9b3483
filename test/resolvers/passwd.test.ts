import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { hashesStarted } from '../../src/crypto/hash-slots.ts';
import { ParameterError } from '../../src/errors.ts';
import { parsePasswdLine, passwdResolver } from '../../src/resolvers/passwd.ts';
import type { StoreEnvironment, UserStore } from '../../src/resolvers/user-store.ts';
import { allowedFilesIn } from '../helpers/user-stores.ts';

const log = pino({ level: 'silent' });

// Made by glibc/libxcrypt (python3 crypt) and Drepper's test vectors.
const SHA512 =
  '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'; // Hello world!
const SHA256 = '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5'; // Hello world!
const SHA256_ROUNDS = '$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA'; // Hello world!
const BCRYPT = '$2b$04$abcdefghijklmnopqrstuuyx2n0Zzopyr9QuYTMCfOJJOj526QVoC'; // pässwörd
const BCRYPT_2Y = '$2y$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu'; // correct horse

const PASSWD = [
  `alice:${SHA512}:1000:1000:Alice Smith,Room 1,+49 170 1,+49 30 1,alice@example.org:/home/alice:/bin/bash`,
  `bob:${SHA256}:1001:1001:Bob,,,:/home/bob:/bin/sh`,
  `carol:${BCRYPT}:1002:1002:Carol Ann Jones,R2,+1 555 2,+1 555 3,other info,carol@example.com,c2@example.com:/home/carol:/bin/zsh`,
  `dave:${BCRYPT_2Y}:1003:1003:Dave Doe,dave@example.org,0170 mobile,030 phone:/home/dave:/bin/bash`,
  `erin:${SHA256_ROUNDS}:1004:1004:Erin:/home/erin:/bin/bash`,
  '# a comment line',
  '',
  'shadowed:x:1005:1005:Shadow User,,,,shadow@example.org:/home/shadowed:/bin/bash',
  'nologin:*:1006:1006:No Login:/:/usr/sbin/nologin',
  `locked:!${SHA512}:1007:1007:Locked Out:/home/locked:/bin/bash`,
  'empty::1008:1008:Empty Password:/home/empty:/bin/bash',
  'broken line without enough fields',
  'root:x:0:0:root:/root:/bin/bash',
].join('\n');

describe('parsePasswdLine: GECOS as privacyIDEA reads it (reference 6.1)', () => {
  it('name, 3rd entry mobile, 4th entry phone, e-mail from the later entries, whole GECOS as description', () => {
    expect(parsePasswdLine(PASSWD.split('\n')[0]!)!.record).toEqual({
      userid: '1000',
      username: 'alice',
      givenname: 'Alice',
      surname: 'Smith',
      mobile: '+49 170 1',
      phone: '+49 30 1',
      email: 'alice@example.org',
      description: 'Alice Smith,Room 1,+49 170 1,+49 30 1,alice@example.org',
    });
  });

  it('Given Sur,email,mobile,phone: the 2nd entry is not read as e-mail', () => {
    expect(parsePasswdLine('u:x:1:1:Given Sur,email@x.org,mobile,phone:/h:/s')!.record).toMatchObject({
      givenname: 'Given',
      surname: 'Sur',
      mobile: 'mobile',
      phone: 'phone',
      email: '',
    });
  });

  it('the surname is everything after the first space; the first e-mail-like entry wins', () => {
    expect(parsePasswdLine(PASSWD.split('\n')[2]!)!.record).toMatchObject({
      givenname: 'Carol',
      surname: 'Ann Jones',
      mobile: '+1 555 2',
      phone: '+1 555 3',
      email: 'carol@example.com',
    });
  });

  it('fewer than four entries: no phone numbers', () => {
    expect(parsePasswdLine('u:x:1:1:Some One,Room,+49 170 9:/h:/s')!.record).toMatchObject({
      givenname: 'Some',
      surname: 'One',
      mobile: '',
      phone: '',
      email: '',
    });
    expect(parsePasswdLine('u:x:1:1::/h:/s')!.record).toMatchObject({
      givenname: '',
      surname: '',
      mobile: '',
      phone: '',
      email: '',
      description: '',
    });
  });

  it('an entry without a domain dot is no e-mail', () => {
    expect(parsePasswdLine('u:x:1:1:A B,r,m,p,user@localhost:/h:/s')!.record.email).toBe('');
    expect(parsePasswdLine('u:x:1:1:A B,r,m,p, user@host.example :/h:/s')!.record.email).toBe(
      'user@host.example',
    );
  });

  it('comments, blank and short lines are no users', () => {
    expect(parsePasswdLine('# x:y:1:1:g:h:s')).toBeUndefined();
    expect(parsePasswdLine('')).toBeUndefined();
    expect(parsePasswdLine('a:b:c')).toBeUndefined();
    expect(parsePasswdLine(':x:1:1:g:h:s')).toBeUndefined();
  });
});

describe('passwdresolver', () => {
  let dir: string;
  let file: string;
  let env: StoreEnvironment;
  const stores: UserStore[] = [];
  const open = (settings: Record<string, string> = { fileName: file }) => {
    const s = passwdResolver.open(settings, env);
    stores.push(s);
    return s;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'authsrv-passwd-'));
    file = join(dir, 'passwd');
    writeFileSync(file, PASSWD);
    env = { log, clock: () => new Date(), files: allowedFilesIn(dir) };
  });
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(stores.splice(0).map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('looks users up by login and by uid', async () => {
    const store = open();
    expect(store.editable).toBe(false);
    expect(store.create).toBeUndefined();
    expect(await store.findByLogin('alice')).toMatchObject({ userid: '1000', email: 'alice@example.org' });
    expect(await store.findById('1001')).toMatchObject({ username: 'bob', givenname: 'Bob', surname: '' });
    expect(await store.findByLogin('nobody')).toBeUndefined();
    expect(await store.findById('4242')).toBeUndefined();
    expect(await store.findByLogin('# a comment line')).toBeUndefined();
  });

  it('reads the file named by Filename, fileName or filename', async () => {
    for (const key of ['Filename', 'fileName', 'filename']) {
      expect(await open({ [key]: file }).findByLogin('bob')).toBeDefined();
    }
  });

  it('a missing file is a clear error', () => {
    expect(() => open({ fileName: join(dir, 'nope') })).toThrow(ParameterError);
  });

  it.each([
    ['alice', 'Hello world!', 'sha512-crypt'],
    ['bob', 'Hello world!', 'sha256-crypt'],
    ['erin', 'Hello world!', 'sha256-crypt with rounds='],
    ['carol', 'pässwörd', 'bcrypt $2b$'],
    ['dave', 'correct horse', 'bcrypt $2y$'],
  ])('%s: %s (%s)', async (login, password) => {
    const store = open();
    const user = (await store.findByLogin(login))!;
    expect(await store.checkPassword(user, password)).toBe(true);
    expect(await store.checkPassword(user, `${password} `)).toBe(false);
    expect(await store.checkPassword(user, '')).toBe(false);
  });

  it('an unknown login costs a check like the first costly hash of the file, or none', async () => {
    const counted = async (run: () => Promise<unknown>) => {
      const before = hashesStarted();
      await run();
      return hashesStarted() - before;
    };
    const store = open();
    expect(await counted(() => store.checkPasswordOfNobody!('Hello world!'))).toBe(1);
    const alice = (await store.findByLogin('alice'))!;
    expect(await counted(() => store.checkPassword(alice, 'wrong'))).toBe(1);
    // A file without a costly hash: a known user costs nothing to check, nor does an unknown one.
    const cheap = join(dir, 'cheap');
    writeFileSync(
      cheap,
      'shadowed:x:1:1::/:/bin/sh\nsha:{SSHA}Woq642AcpYBkRUSo2rJa7qRsad/tXh1w:2:2::/:/bin/sh\n',
    );
    expect(await counted(() => open({ fileName: cheap }).checkPasswordOfNobody!('x'))).toBe(0);
  });

  it('x, *, locked and empty hashes never log in', async () => {
    const store = open();
    for (const login of ['shadowed', 'nologin', 'locked', 'empty', 'root']) {
      const user = (await store.findByLogin(login))!;
      expect(user).toBeDefined();
      for (const pw of ['', 'x', '*', 'Hello world!'])
        expect(await store.checkPassword(user, pw)).toBe(false);
    }
  });

  it('a password is checked against the user it names, not another with the same uid', async () => {
    const store = open();
    expect(await store.checkPassword({ userid: '1000', username: 'bob' }, 'Hello world!')).toBe(false);
    expect(await store.checkPassword({ userid: '9999', username: 'alice' }, 'Hello world!')).toBe(false);
  });

  it('a login or uid given twice: the first entry wins, and each entry checks its own password', async () => {
    writeFileSync(
      file,
      [
        `alice:${SHA512}:1000:1000:First Alice:/h:/s`,
        `alice:${BCRYPT}:2000:2000:Second Alice:/h:/s`,
        `twin:${BCRYPT}:1000:1000:Same uid as the first alice:/h:/s`,
      ].join('\n'),
    );
    const store = open();
    expect(await store.findByLogin('alice')).toMatchObject({ userid: '1000', givenname: 'First' });
    expect(await store.findById('1000')).toMatchObject({ username: 'alice', givenname: 'First' });
    expect(await store.findById('2000')).toMatchObject({ username: 'alice', givenname: 'Second' });
    expect(await store.checkPassword({ userid: '1000', username: 'alice' }, 'Hello world!')).toBe(true);
    expect(await store.checkPassword({ userid: '2000', username: 'alice' }, 'pässwörd')).toBe(true);
    expect(await store.checkPassword({ userid: '2000', username: 'alice' }, 'Hello world!')).toBe(false);
    expect(await store.checkPassword({ userid: '1000', username: 'twin' }, 'pässwörd')).toBe(true);
    expect(await store.checkPassword({ userid: '1000', username: 'twin' }, 'Hello world!')).toBe(false);
  });

  it('search with * wildcards (case-insensitive) and limit', async () => {
    const store = open();
    const names = async (filter: Record<string, string>, limit = 100) =>
      (await store.search(filter, limit)).map((u) => u.username);
    expect(await names({ username: 'a*' })).toEqual(['alice']);
    expect(await names({ username: '*O*' })).toEqual([
      'bob',
      'carol',
      'shadowed',
      'nologin',
      'locked',
      'root',
    ]);
    expect(await names({ email: '*@example.org' })).toEqual(['alice', 'shadowed']);
    expect(await names({ surname: 'doe' })).toEqual(['dave']);
    expect(await names({ description: '*room*' })).toEqual(['alice']);
    expect(await names({}, 3)).toEqual(['alice', 'bob', 'carol']);
    expect((await store.search({}, 100)).length).toBe(10);
  });

  it("userid searches with privacyIDEA's comparisons", async () => {
    const store = open();
    const names = async (userid: string) => (await store.search({ userid }, 100)).map((u) => u.username);
    expect(await names('=1001')).toEqual(['bob']);
    expect(await names('>=1006')).toEqual(['nologin', 'locked', 'empty']);
    expect(await names('< 1001')).toEqual(['alice', 'root']);
    expect(await names('between 1004,1002')).toEqual(['carol', 'dave', 'erin']);
    expect(await names('100*')).toEqual([
      'alice',
      'bob',
      'carol',
      'dave',
      'erin',
      'shadowed',
      'nologin',
      'locked',
      'empty',
    ]);
    expect(await names('1003')).toEqual(['dave']);
  });

  it('the file is read again when it changes (checked at most once a second)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const store = open();
    const alice = (await store.findByLogin('alice'))!;
    expect(await store.checkPassword(alice, 'Hello world!')).toBe(true);

    writeFileSync(
      file,
      PASSWD.replace(SHA512, BCRYPT).concat(`\nfrank:${SHA256}:1010:1010:Frank New,,,:/h:/s\n`),
    );
    expect(await store.findByLogin('frank')).toBeUndefined(); // within the second: not yet looked at

    vi.setSystemTime(Date.now() + 1500);
    expect(await store.findByLogin('frank')).toMatchObject({ userid: '1010', givenname: 'Frank' });
    const changed = (await store.findByLogin('alice'))!;
    expect(await store.checkPassword(changed, 'Hello world!')).toBe(false);
    expect(await store.checkPassword(changed, 'pässwörd')).toBe(true);

    writeFileSync(file, PASSWD.split('\n').slice(1).join('\n'));
    vi.setSystemTime(Date.now() + 1500);
    expect(await store.findByLogin('alice')).toBeUndefined();
    expect(await store.checkPassword(changed, 'pässwörd')).toBe(false);
  });

  it('test() counts the users', async () => {
    expect(await passwdResolver.test({ fileName: file }, env)).toEqual({
      value: true,
      description: `Found 10 users in ${file}.`,
    });
    await expect(passwdResolver.test({ fileName: join(dir, 'nope') }, env)).rejects.toThrow(ParameterError);
  });

  describe('opens its file only under the rule of files.allowed_dirs', () => {
    const refused = [
      ['/etc/shadow', /Filename: \/etc\/shadow is not in a directory allowed for the server's files/],
      ['/proc/self/environ', /is not in a directory allowed/],
      ['/dev/zero', /is not in a directory allowed/],
      ['{dir}/../../etc/passwd', /is not in a directory allowed/],
      ['{dir}/link-out', /is not in a directory allowed/],
      ['{dir}/sub', /Filename: .*\/sub is not a regular file/],
      ['{dir}/big', /Filename: .*\/big is larger than 10485760 bytes/],
    ] as const;
    const prepare = () => {
      symlinkSync('/etc/passwd', join(dir, 'link-out'));
      mkdirSync(join(dir, 'sub'));
      writeFileSync(join(dir, 'big'), Buffer.alloc(10 * 1024 * 1024 + 1, 'a'));
    };

    it.each(refused)('%s is refused when saved, tested and opened', async (name, message) => {
      prepare();
      const fileName = name.replace('{dir}', dir);
      expect(() => passwdResolver.validate!({ fileName }, env.files)).toThrow(message);
      expect(() => passwdResolver.validate!({ fileName }, env.files)).toThrow(ParameterError);
      expect(() => open({ fileName })).toThrow(message);
      await expect(passwdResolver.test({ fileName }, env)).rejects.toThrow(message);
    });

    it('a file that does not exist yet may be saved inside an allowed directory, not outside it', () => {
      expect(() => passwdResolver.validate!({ fileName: join(dir, 'later') }, env.files)).not.toThrow();
      expect(() =>
        passwdResolver.validate!({ fileName: join(dir, 'no/such/dir/later') }, env.files),
      ).not.toThrow();
      expect(() => passwdResolver.validate!({ fileName: '/nonexistent/passwd' }, env.files)).toThrow(
        /is not in a directory allowed/,
      );
      expect(() =>
        passwdResolver.validate!({ fileName: join(dir, 'nope/../../../etc/x') }, env.files),
      ).toThrow(/is not in a directory allowed/);
      expect(() => passwdResolver.validate!({}, env.files)).toThrow(
        /\/etc\/passwd is not in a directory allowed/,
      );
    });

    it('a link inside the allowed directory to a file inside it is followed', async () => {
      symlinkSync(file, join(dir, 'link-in'));
      expect(await open({ fileName: join(dir, 'link-in') }).findByLogin('alice')).toBeDefined();
    });

    it('refuses at the next look a file replaced by a link out, a directory or a bigger file', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const store = open();
      expect(await store.findByLogin('alice')).toBeDefined();
      const later = async (change: () => void, message: RegExp) => {
        change();
        vi.setSystemTime(Date.now() + 1500);
        await expect(store.findByLogin('alice')).rejects.toThrow(message);
        await expect(store.search({}, 10)).rejects.toThrow(ParameterError);
      };
      await later(() => {
        rmSync(file);
        symlinkSync('/etc/passwd', file);
      }, /is not in a directory allowed/);
      await later(() => {
        rmSync(file);
        mkdirSync(file);
      }, /is not a regular file/);
      await later(() => {
        rmSync(file, { recursive: true });
        writeFileSync(join(dir, 'grown'), Buffer.alloc(10 * 1024 * 1024 + 1, 'a'));
        renameSync(join(dir, 'grown'), file);
      }, /is larger than 10485760 bytes/);
      // Put right again, it is read again.
      writeFileSync(file, PASSWD);
      vi.setSystemTime(Date.now() + 1500);
      expect(await store.findByLogin('alice')).toBeDefined();
    });
  });
});
