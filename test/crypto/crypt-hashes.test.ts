import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeCryptHash, shaCrypt, verifyCryptHash } from '../../src/crypto/crypt-hashes.ts';
import { hashPassword } from '../../src/crypto/password-hash.ts';

// Vectors from Drepper's specification of SHA-crypt, the OpenBSD/John bcrypt set, the phpass test
// script and OpenLDAP's slappasswd; the rest were produced by glibc/libxcrypt (python3 crypt).
const VECTORS: [format: string, hash: string, password: string][] = [
  [
    'sha512-crypt',
    '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
    'Hello world!',
  ],
  [
    'sha512-crypt rounds=5000',
    '$6$rounds=5000$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
    'Hello world!',
  ],
  [
    'sha512-crypt rounds=10000',
    '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.',
    'Hello world!',
  ],
  [
    'sha512-crypt truncated salt',
    '$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0',
    'This is just a test',
  ],
  [
    'sha512-crypt long password',
    '$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1',
    'a very much longer text to encrypt.  This one even stretches over morethan one line.',
  ],
  [
    'sha512-crypt rounds=77777',
    '$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0',
    'we have a short salt string but not a short password',
  ],
  [
    'sha512-crypt minimum rounds',
    '$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.',
    'the minimum number is still observed',
  ],
  [
    'sha512-crypt empty password',
    '$6$abc$mJP3a6FyA8uCnzRtlnNypPwjnvpi5TP9qOrInzrfDmwxUQG38PkpCPdqfTb8JQfAngapMxeim4AZ..hSdRRzD.',
    '',
  ],
  [
    'sha512-crypt UTF-8 password',
    '$6$abc$wXvLgMChht3U87i888StiQy1W/EK2Ge3H6rxIRM8l0prwhG1icmLmgEOcYMiXbSth/t5JyRjjVGbqvVEQ7j9n/',
    'pässwörd',
  ],
  ['sha256-crypt', '$5$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5', 'Hello world!'],
  [
    'sha256-crypt rounds=10000',
    '$5$rounds=10000$saltstringsaltst$3xv.VbSHBb41AL9AvLeujZkZRBAwqFMz2.opqey6IcA',
    'Hello world!',
  ],
  [
    'sha256-crypt truncated salt',
    '$5$rounds=5000$toolongsaltstrin$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5',
    'This is just a test',
  ],
  [
    'sha256-crypt long password',
    '$5$rounds=1400$anotherlongsalts$Rx.j8H.h8HjEDGomFU8bDkXm3XIUnzyxf12oP84Bnq1',
    'a very much longer text to encrypt.  This one even stretches over morethan one line.',
  ],
  ['sha256-crypt 200-byte password', '$5$abc$1tyjgZdjCP/3YwuSn9x.5JSF6He6FyBxCfsk3eWbIs0', 'x'.repeat(200)],
  ['bcrypt $2a$', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*U'],
  ['bcrypt $2b$', '$2b$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu', 'correct horse'],
  ['bcrypt $2y$', '$2y$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu', 'correct horse'],
  ['bcrypt UTF-8', '$2b$04$abcdefghijklmnopqrstuuyx2n0Zzopyr9QuYTMCfOJJOj526QVoC', 'pässwörd'],
  ['{SHA}', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'password'],
  ['{SSHA}', '{SSHA}Woq642AcpYBkRUSo2rJa7qRsad/tXh1w', 'secret'],
  ['{SHA256}', '{SHA256}K7gNU3sdo+OL0wNhqoVWhr3g6s1xYv72ol/pe/Unols=', 'secret'],
  ['{SSHA256}', '{SSHA256}cLtAtzwujZ8Zt13f5peIw9HTi/7fi0FV/wFFDWQhCySt9/nErab8YQ==', 'secret'],
  [
    '{SHA512}',
    '{SHA512}vSsar3708Jvp9Szi2NWZZ02Bqp1qRCFpbcTZPdBhnWgs5WtNZKnvCXdhztmeD2cmW192CF5bDufKRpayrW/isg==',
    'secret',
  ],
  [
    '{SSHA512}',
    '{SSHA512}NOl6H9A72vPqxcBkapyLxcNGMMIn9ycF8eUhLcr8EWwpEkDSfL2aXWDGy9zOJmpuB+QokJwrApVYRRvl0ttc6omVb3wBoTjt',
    'secret',
  ],
  ['{ssha} lower-case scheme', '{ssha}Woq642AcpYBkRUSo2rJa7qRsad/tXh1w', 'secret'],
  [
    '{CRYPT}$6$',
    '{CRYPT}$6$Av/NyyQywTdpXt28$F/RZZKe1pfky034xGF.2vXDhFZKIu4hejN7lKq56rDgz6PUeuJ3.2d6SaW0jdzKtt.7NVnAUlVyrKworZbPhB0',
    'secret',
  ],
  ['phpass $P$', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0', 'test12345'],
  ['hex SHA-256 (OTRS)', '46970bef70aced8123f0d5d094717e2a5cd412041e03b26376049fe65b2834a4', 'pässwörd'],
];

describe('verifyCryptHash: known vectors', () => {
  it.each(VECTORS)('%s accepts the password and refuses others', async (_format, hash, password) => {
    expect(await verifyCryptHash(hash, password)).toBe(true);
    expect(await verifyCryptHash(hash, `${password}x`)).toBe(false);
    if (password !== '') expect(await verifyCryptHash(hash, password.slice(0, -1))).toBe(false);
    expect(
      await verifyCryptHash(hash, password.toUpperCase() === password ? 'other' : password.toUpperCase()),
    ).toBe(false);
  });

  it('tolerates blanks around a stored value (CHAR columns)', async () => {
    expect(await verifyCryptHash('{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=   ', 'password')).toBe(true);
  });

  it('reproduces the SHA-crypt strings exactly, clamping rounds below the minimum', async () => {
    expect(await shaCrypt('Hello world!', '$6$saltstring')).toBe(VECTORS[0]![1]);
    expect(await shaCrypt('Hello world!', '$5$rounds=10000$saltstringsaltstring')).toBe(VECTORS[10]![1]);
    expect(await shaCrypt('the minimum number is still observed', '$6$rounds=10$roundstoolow')).toBe(
      VECTORS[6]![1],
    );
    expect(await shaCrypt('the minimum number is still observed', '$5$rounds=10$roundstoolow')).toBe(
      '$5$rounds=1000$roundstoolow$yfvwcWrQ8l/K0DAWyuPMDNHpIVlTQebY9l/gL972bIC',
    );
  });

  it('verifies argon2id PHC strings', async () => {
    const phc = await hashPassword('argon pass', { memoryKiB: 64, passes: 1, parallelism: 1 });
    expect(await verifyCryptHash(phc, 'argon pass')).toBe(true);
    expect(await verifyCryptHash(phc, 'argon pasS')).toBe(false);
  });
});

function pythonCrypt(password: string, setting: string): string {
  return execFileSync(
    'python3',
    [
      '-W',
      'ignore',
      '-c',
      'import crypt,sys; print(crypt.crypt(sys.argv[1], sys.argv[2]))',
      password,
      setting,
    ],
    { encoding: 'utf8' },
  ).trim();
}

function randomSalt(n: number): string {
  const alphabet = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return [...randomBytes(n)].map((b) => alphabet[b & 63]).join('');
}

/** Passwords of every length class that matters to the algorithm (around 32 and 64 bytes too). */
const PASSWORDS = [
  'a',
  'pw with spaces',
  'ä€𝄞 unicode',
  'x'.repeat(31),
  'y'.repeat(32),
  'z'.repeat(33),
  'q'.repeat(65),
];

// .ci/run installs openssl, python3 and slapd (slappasswd): these comparisons always run there.
describe('SHA-crypt against openssl passwd', () => {
  it.each(['-5', '-6'])('openssl passwd %s', async (flag) => {
    for (const pw of PASSWORDS) {
      const salt = randomSalt(16);
      const hash = execFileSync('openssl', ['passwd', flag, '-salt', salt, '-stdin'], {
        input: `${pw}\n`,
        encoding: 'utf8',
      }).trim();
      expect(hash.startsWith(`$${flag.slice(1)}$${salt}$`)).toBe(true);
      expect(await shaCrypt(pw, hash)).toBe(hash);
      expect(await verifyCryptHash(hash, pw)).toBe(true);
      expect(await verifyCryptHash(hash, `${pw}!`)).toBe(false);
    }
  });
});

describe('crypt formats against python3 crypt (glibc/libxcrypt)', () => {
  it('sha256-crypt and sha512-crypt with rounds= and short salts', async () => {
    for (const [i, pw] of PASSWORDS.entries()) {
      for (const id of ['5', '6']) {
        const setting = `$${id}$rounds=${1000 + i * 137}$${randomSalt(1 + i)}`;
        const hash = pythonCrypt(pw, setting);
        expect(await shaCrypt(pw, setting)).toBe(hash);
        expect(await verifyCryptHash(hash, pw)).toBe(true);
        expect(await verifyCryptHash(hash, `${pw}.`)).toBe(false);
      }
    }
  });

  it('bcrypt $2b$ and $2y$ produced by libxcrypt', async () => {
    for (const pw of ['a', 'ä€𝄞 unicode', 'q'.repeat(65)]) {
      const hash = pythonCrypt(pw, `$2b$04$${randomSalt(22).replace(/.$/, 'u')}`);
      expect(await verifyCryptHash(hash, pw)).toBe(true);
      expect(await verifyCryptHash(hash.replace('$2b$', '$2y$'), pw)).toBe(true);
      expect(await verifyCryptHash(hash, `${pw}.`)).toBe(false);
    }
  });

  it('our sha512-crypt and bcrypt hashes are accepted by libxcrypt', async () => {
    for (const type of ['sha512-crypt', 'sha256-crypt', 'bcrypt']) {
      const hash = await makeCryptHash(type, 'ä€ made here');
      expect(pythonCrypt('ä€ made here', hash)).toBe(hash);
    }
  });
});

describe('LDAP schemes against slappasswd', () => {
  it.each(['{SSHA}', '{SHA}', '{SSHA256}', '{SSHA512}', '{SHA256}', '{SHA512}'])('%s', async (scheme) => {
    const hash = execFileSync('slappasswd', ['-o', 'module-load=pw-sha2', '-h', scheme, '-s', 'ä€ ldap'], {
      encoding: 'utf8',
    }).trim();
    expect(hash.startsWith(scheme)).toBe(true);
    expect(await verifyCryptHash(hash, 'ä€ ldap')).toBe(true);
    expect(await verifyCryptHash(hash, 'ä€ LDAP')).toBe(false);
  });
});

describe('makeCryptHash', () => {
  it.each([
    ['SSHA', /^\{SSHA\}[A-Za-z0-9+/=]{40}$/],
    ['SSHA256', /^\{SSHA256\}[A-Za-z0-9+/=]{56}$/],
    ['SSHA512', /^\{SSHA512\}[A-Za-z0-9+/=]{96}$/],
    ['SHA', /^\{SHA\}[A-Za-z0-9+/=]{28}$/],
    ['SHA256', /^\{SHA256\}[A-Za-z0-9+/=]{44}$/],
    ['SHA512', /^\{SHA512\}[A-Za-z0-9+/=]{88}$/],
    ['OTRS', /^[0-9a-f]{64}$/],
    ['bcrypt', /^\$2b\$10\$[./A-Za-z0-9]{53}$/],
    ['sha512-crypt', /^\$6\$[./A-Za-z0-9]{16}\$[./A-Za-z0-9]{86}$/],
    ['SHA512_CRYPT', /^\$6\$[./A-Za-z0-9]{16}\$[./A-Za-z0-9]{86}$/],
    ['sha256-crypt', /^\$5\$[./A-Za-z0-9]{16}\$[./A-Za-z0-9]{43}$/],
    ['phpass', /^\$P\$B[./A-Za-z0-9]{30}$/],
    ['argon2id', /^\$argon2id\$v=19\$/],
  ])('%s makes a hash verifyCryptHash accepts', async (type, shape) => {
    const a = await makeCryptHash(type, 'new secret ä');
    expect(a).toMatch(shape);
    expect(await verifyCryptHash(a, 'new secret ä')).toBe(true);
    expect(await verifyCryptHash(a, 'new secret a')).toBe(false);
    if (!['SHA', 'SHA256', 'SHA512', 'OTRS'].includes(type)) {
      expect(await makeCryptHash(type, 'new secret ä')).not.toBe(a); // salted
    }
  });

  it('refuses an unknown type', async () => {
    await expect(makeCryptHash('md4', 'x')).rejects.toThrow(/Unknown password hash type 'md4'/);
  });
});

describe('verifyCryptHash: refusals', () => {
  const sha512 = VECTORS[0]![1];
  it.each([
    ['empty', ''],
    ['x (shadow)', 'x'],
    ['* (no login)', '*'],
    ['locked', `!${sha512}`],
    ['locked !!', '!!'],
    ['plain text', 'Hello world!'],
    ['unknown scheme', '{MD5}Xr4ilOzQ4PCOq3aQ0qbuaQ=='],
    ['unknown crypt id', '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/'],
    ['yescrypt', '$y$j9T$abcdefgh$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM'],
    ['truncated sha512-crypt', sha512.slice(0, -1)],
    ['sha512-crypt with a 43-char checksum', '$6$saltstring$5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5'],
    ['sha-crypt checksum with bad chars', `${sha512.slice(0, -2)}==`],
    [
      'sha-crypt rounds below minimum',
      '$6$rounds=10$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.',
    ],
    ['sha-crypt rounds with leading zero', sha512.replace('$6$', '$6$rounds=05000$')],
    ['sha-crypt absurd rounds', sha512.replace('$6$', '$6$rounds=999999999$')],
    [
      'sha-crypt salt longer than 16',
      '$5$rounds=5000$toolongsaltstring$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5',
    ],
    ['bcrypt short', '$2b$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3X'],
    ['bcrypt $2x$', '$2x$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu'],
    ['bcrypt $2$', '$2$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xuab'],
    ['bcrypt cost 31', '$2b$31$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu'],
    ['bcrypt cost 03', '$2b$03$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu'],
    ['{SSHA} without salt', '{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g='],
    ['{SHA} with trailing bytes', '{SHA}Woq642AcpYBkRUSo2rJa7qRsad/tXh1w'],
    ['{SSHA} not base64', '{SSHA}Woq642AcpYBkRUSo2rJa7q!sad/tXh1w'],
    ['{SSHA} bad padding', '{SSHA}Woq642AcpYBkRUSo2rJa7qRsad/tXh1'],
    ['{SHA} empty', '{SHA}'],
    ['{CRYPT} DES', '{CRYPT}abJnggxhB/yWI'],
    ['phpass count too low', '$P$2IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
    ['phpass count too high', '$P$zIQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
    ['phpass truncated', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L'],
    ['phpass $S$ (Drupal)', '$S$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
    ['argon2id damaged', '$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$'],
    ['argon2i', '$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo'],
    ['63 hex digits', '46970bef70aced8123f0d5d094717e2a5cd412041e03b26376049fe65b2834a'],
  ])('%s → false', async (_what, stored) => {
    for (const pw of ['', 'Hello world!', 'secret', 'test12345', 'x', stored]) {
      expect(await verifyCryptHash(stored, pw)).toBe(false);
    }
  });

  it('non-string input → false', async () => {
    expect(await verifyCryptHash(undefined as unknown as string, 'x')).toBe(false);
    expect(await verifyCryptHash(null as unknown as string, 'x')).toBe(false);
    expect(await verifyCryptHash(sha512, undefined as unknown as string)).toBe(false);
  });

  it('bounded work: an absurd work factor is refused at once', async () => {
    const t = Date.now();
    expect(await verifyCryptHash('$P$zIQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0', 'x')).toBe(false);
    expect(await verifyCryptHash(sha512.replace('$6$', '$6$rounds=999999999$'), 'x')).toBe(false);
    expect(Date.now() - t).toBeLessThan(1000);
  });
});
