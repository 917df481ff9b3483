// The script SMS provider with real scripts in a temporary scripts directory: the phone number and
// the message as arguments (and the message on stdin), wait and background, a failing exit status,
// a timeout, and the refusal of every path out of the directory.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParameterError } from '../../../src/errors.ts';
import { SmsSendError } from '../../../src/gateways/sms/provider.ts';
import { scriptProvider } from '../../../src/gateways/sms/script.ts';

let root: string;
let scriptsDir: string;
let out: string;
const env = () => ({ log: pino({ level: 'silent' }), scriptsDir });

function script(name: string, body: string, mode = 0o755): void {
  writeFileSync(join(scriptsDir, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(scriptsDir, name), mode);
}

const gateway = (options: Record<string, string>) => ({
  options: { background: 'wait', ...options },
  headers: {},
});

/** Waits until the background script wrote its file (no timing assertion: the test's own timeout bounds it). */
async function fileWritten(path: string): Promise<string> {
  while (!existsSync(path) || readFileSync(path, 'utf8') === '') await new Promise((r) => setTimeout(r, 20));
  return readFileSync(path, 'utf8');
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'authsrv-sms-script-'));
  scriptsDir = join(root, 'scripts');
  mkdirSync(scriptsDir);
  out = join(root, 'out');
  mkdirSync(out);
  script('record.sh', `printf '%s\\n' "$1" "$2" > "${out}/args"; cat > "${out}/stdin"; env > "${out}/env"`);
  script('fail.sh', 'echo "no credit left" >&2; exit 3');
  script('slow.sh', 'sleep 30');
  script('noexec.sh', 'exit 0', 0o644);
  script('bg.sh', `sleep 0.2; printf '%s' "$1" > "${out}/bg"`);
  writeFileSync(join(root, 'outside.sh'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(root, 'outside.sh'), 0o755);
  symlinkSync(join(root, 'outside.sh'), join(scriptsDir, 'link.sh'));
  mkdirSync(join(scriptsDir, 'sub'));
  script('sub/inner.sh', `printf '%s' "$1" > "${out}/inner"`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('script SMS provider', () => {
  it('runs the script with the phone number and the message as arguments, the message on stdin', async () => {
    process.env.AUTHSRV_SECRET_LOOKING = 'must-not-leak';
    try {
      await scriptProvider.send(
        gateway({ script: 'record.sh', REGEXP: '/[+ ]//' }),
        '+49 151 1',
        'Code: 1234 ok',
        env(),
      );
    } finally {
      delete process.env.AUTHSRV_SECRET_LOOKING;
    }
    expect(readFileSync(join(out, 'args'), 'utf8')).toBe('491511\nCode: 1234 ok\n');
    expect(readFileSync(join(out, 'stdin'), 'utf8')).toBe('Code: 1234 ok');
    // Only PATH and LANG of the server's environment reach the script.
    expect(readFileSync(join(out, 'env'), 'utf8')).not.toContain('must-not-leak');
    await scriptProvider.send(gateway({ script: 'sub/inner.sh' }), '42', 'm', env());
    expect(readFileSync(join(out, 'inner'), 'utf8')).toBe('42');
  });

  it('reports a failing exit status with what the script said', async () => {
    await expect(scriptProvider.send(gateway({ script: 'fail.sh' }), '1', 'm', env())).rejects.toThrow(
      new SmsSendError('the script fail.sh exited with status 3: no credit left'),
    );
  });

  it('kills a script that does not finish within TIMEOUT', async () => {
    await expect(
      scriptProvider.send(gateway({ script: 'slow.sh', TIMEOUT: '0.3' }), '1', 'm', env()),
    ).rejects.toThrow('the script slow.sh did not finish within 0.3 s');
  });

  it('counts a started script as sent in the background', async () => {
    await scriptProvider.send(gateway({ script: 'bg.sh', background: 'background' }), '77', 'm', env());
    expect(await fileWritten(join(out, 'bg'))).toBe('77');
  });

  it('refuses scripts that are missing, not executable or lead out of the directory', async () => {
    const send = (name: string) => scriptProvider.send(gateway({ script: name }), '1', 'm', env());
    await expect(send('missing.sh')).rejects.toThrow(`the script missing.sh does not exist in ${scriptsDir}`);
    await expect(send('noexec.sh')).rejects.toThrow('the script noexec.sh is not executable');
    await expect(send('link.sh')).rejects.toThrow(`the script link.sh leads out of ${scriptsDir}`);
    await expect(send('sub')).rejects.toThrow('the script sub is not a regular file');
    for (const name of ['../outside.sh', 'sub/../../outside.sh', join(root, 'outside.sh'), '/bin/sh', '']) {
      await expect(send(name)).rejects.toBeInstanceOf(ParameterError);
      expect(() => scriptProvider.check(gateway({ script: name }), env())).toThrow(
        'must name a file inside the script directory (sms.scripts_dir)',
      );
    }
    expect(() => scriptProvider.check(gateway({ script: 'record.sh', TIMEOUT: '-1' }), env())).toThrow(
      'TIMEOUT',
    );
  });
});
