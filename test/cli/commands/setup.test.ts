// `authsrv setup`, driven as a script would (every answer a flag, the test login's value on
// standard input) and as a person would (the prompts answered on a pseudo-terminal): the realm,
// the admin policy, the token whose QR code decodes to its URI, the test login and the client
// lines; and the errors of missing answers and of a user store that does not work.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PEOPLE_DN,
  READER_DN,
  READER_PASSWORD,
  type SlapdFixture,
  startSlapd,
} from '../../../scripts/fixtures/slapd.ts';
import { cleanEnv } from '../../helpers/authsrv-process.ts';
import { BIN, type CliEnv, cliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { hotp } from '../../helpers/otp.ts';
import { decodeTerminalQr } from '../../helpers/qr-decode.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';
const totpNow = () => hotp(KEY, Math.floor(Date.now() / 30_000));

/** The QR drawing between the "Scan it" line and the otpauth URI line. */
function drawnQr(stdout: string): string {
  const lines = stdout.split('\n');
  const from = lines.findIndex((l) => l.includes('Scan it with your authenticator app')) + 1;
  const to = lines.findIndex((l) => l.startsWith('otpauth URI: '));
  return lines.slice(from, to).join('\n');
}

async function auditActions(c: CliEnv): Promise<string[]> {
  const rt = await c.runtime();
  const rows = await rt.store.db.selectFrom('audit').select(['action', 'success']).orderBy('id').execute();
  return rows.map((r) => `${r.action} ${r.success}`);
}

describe('authsrv setup', () => {
  let c: CliEnv;
  let slapd: SlapdFixture;
  beforeAll(async () => {
    slapd = await startSlapd();
  });
  afterAll(async () => {
    await slapd?.stop();
    await c?.close();
  });

  async function fresh(): Promise<CliEnv> {
    await c?.close();
    c = await cliEnv('sqlite');
    return c;
  }

  it('runs from flags: realm, admin policy, token with its QR code, test login, client lines', async () => {
    await fresh();
    const passwd = await writePasswdFile(c.dataDir, 'users', [{ login: 'alice', uid: 1001 }]);
    const r = await c.run(
      [
        'setup',
        '--passwd-file',
        passwd,
        '--realm',
        'lab',
        '--user',
        'alice',
        '--otpkey',
        KEY,
        '--test-pass-stdin',
        '--url',
        'http://10.0.0.5:5000',
      ],
      `${totpNow()}\n`,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`✓ The user store works: Found 1 users in ${passwd}.`);
    expect(r.stdout).toContain('✓ Realm lab (resolver lab-users)');
    expect(r.stdout).toContain('✓ Admin policy setup-admin: every right for the administrator admin');
    const uri = /^otpauth URI: (\S+)$/m.exec(r.stdout)![1]!;
    expect(uri).toMatch(/secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ/);
    expect(decodeTerminalQr(drawnQr(r.stdout))).toBe(uri);
    expect(r.stdout).toContain('✓ Test login of alice@lab accepted');
    expect(r.stdout).toContain('URL = http://10.0.0.5:5000/validate/check\nREALM = lab\n');
    expect(r.stdout).toContain(
      'pam_python.so /lib/security/privacyidea_pam.py url=http://10.0.0.5:5000 realm=lab',
    );
    expect(await auditActions(c)).toEqual([
      'CLI setup realm 1',
      'CLI setup policy 1',
      'CLI setup token 1',
      'CLI setup test login 1',
    ]);
  });

  it('takes users from LDAP, and exits 1 when the test login is refused', async () => {
    await fresh();
    const pwFile = join(c.dataDir, 'bindpw');
    writeFileSync(pwFile, `${READER_PASSWORD}\n`);
    const r = await c.run(
      [
        'setup',
        '--ldap-uri',
        slapd.url,
        '--ldap-base',
        PEOPLE_DN,
        '--ldap-binddn',
        READER_DN,
        '--ldap-bindpw-file',
        pwFile,
        '--user',
        'alice',
        '--no-admin-policy',
        '--test-pass-stdin',
      ],
      '000000\n',
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✓ The user store works: .*\d+ user objects found/);
    expect(r.stdout).toContain('✓ Realm corp (resolver corp-users)');
    expect(r.stdout).not.toContain('Admin policy');
    expect(r.stdout).toMatch(/✗ Test login REJECT: /);
    const actions = await auditActions(c);
    expect(actions).toEqual(['CLI setup realm 1', 'CLI setup token 1', 'CLI setup test login 0']);
  });

  it('names the flag of a missing answer and stops before storing anything, as for a store that fails', async () => {
    await fresh();
    expect(expectOneLineError(await c.run(['setup', '--non-interactive']))).toBe(
      'authsrv: Where are your users: give --passwd-file FILE or --ldap-uri URI',
    );
    expect(expectOneLineError(await c.run(['setup', '--ldap-uri', 'ldap://127.0.0.1:9']))).toBe(
      'authsrv: Base DN of the users: give --ldap-base',
    );
    const missing = await c.run(['setup', '--passwd-file', join(c.dataDir, 'nothing-here')]);
    expect(expectOneLineError(missing)).toMatch(/^authsrv: The user store does not work: /);
    const rt = await c.runtime();
    expect(await rt.store.db.selectFrom('resolver').selectAll().execute()).toEqual([]);
    expect(await rt.store.db.selectFrom('realm').selectAll().execute()).toEqual([]);
  });

  it('asks on a terminal for every answer a flag did not give', async () => {
    await fresh();
    const passwd = await writePasswdFile(c.dataDir, 'users', [{ login: 'alice', uid: 1001 }]);
    const term = onTerminal([BIN, '--data-dir', c.dataDir, 'setup', '--otpkey', KEY], c.dataDir);
    await term.answer(/Where are your users/, '\r');
    await term.answer(/The passwd file/, `${passwd}\r`);
    await term.answer(/Name of the first realm/, 'lab\r');
    await term.answer(/Your login in lab/, 'alice\r');
    await term.answer(/A PIN for your token/, '12\r');
    await term.answer(/Test login: your PIN followed by the code/, () => `12${totpNow()}\r`);
    const code = await term.exited;
    const out = term.text();
    expect(out).toContain('✓ Test login of alice@lab accepted');
    expect(out).toContain('REALM = lab');
    expect(out).not.toContain(`12${totpNow()}`);
    expect(code).toBe(0);
    expect(await auditActions(c)).toContain('CLI setup test login 1');
  });
});

/** Terminal escape sequences (colours, cursor moves). */
const ESCAPES = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

/** A command on a pseudo-terminal (util-linux `script`), answered prompt by prompt. */
function onTerminal(args: string[], cwd: string) {
  const line = [process.execPath, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qfec', line, '/dev/null'], {
    cwd,
    env: { ...cleanEnv({ USER: 'tester', TERM: 'xterm' }), COLUMNS: '120', LINES: '50' },
    stdio: 'pipe',
  });
  let output = '';
  let seen = 0;
  const waiting: (() => void)[] = [];
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    for (const w of [...waiting]) w();
  });
  // Without escape sequences (colours, cursor moves): the text a person reads.
  const text = () => output.replace(ESCAPES, '');
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    text,
    exited,
    /** Waits for `prompt` after the previous one, then types `keys`. */
    answer(prompt: RegExp, keys: string | (() => string)) {
      return new Promise<void>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no prompt ${prompt} in: ${text()}`)), 20_000);
        const check = () => {
          const rest = text().slice(seen);
          const m = prompt.exec(rest);
          if (!m) return;
          seen += m.index + m[0].length;
          clearTimeout(timer);
          waiting.splice(waiting.indexOf(check), 1);
          child.stdin.write(typeof keys === 'string' ? keys : keys());
          done();
        };
        waiting.push(check);
        check();
      });
    },
  };
}
