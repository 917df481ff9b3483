// privacyIDEA's ScriptSMSProvider: an executable of the scripts directory (sms.scripts_dir of the
// configuration, which only the operator sets) is run with the phone number and the message as its
// two arguments; the message is also written to its standard input, as privacyIDEA passes it.
// `wait` waits for its exit status (0: sent); `background` counts a started script as sent. The
// script name must name a file inside the directory: no absolute path, no `..`, and no symbolic
// link leading out of it. The script gets only PATH and LANG of the server's environment (the
// server's own variables may hold database credentials) and is killed after TIMEOUT.
import { spawn } from 'node:child_process';
import { sep } from 'node:path';
import { ConfinedFileError, executableInside, nameInside } from '../../files/index.ts';
import {
  checkMangling,
  manglePhone,
  REGEXP_PARAMETER,
  timeoutMs,
  timeoutParameter,
  withDeadline,
} from './common.ts';
import { type GatewaySettings, type SendEnvironment, type SmsProvider, SmsSendError } from './provider.ts';

const DEFAULT_TIMEOUT_SECONDS = 10;
const MAX_STDERR_BYTES = 1024;

const parameters = {
  script: {
    required: true,
    description:
      'The script in the script directory (sms.scripts_dir) to call. Expects phone and message as arguments.',
  },
  background: {
    required: true,
    description:
      'Wait for the script to finish (wait: its exit status decides) or run it in the background (background).',
    values: ['background', 'wait'],
  },
  REGEXP: REGEXP_PARAMETER,
  TIMEOUT: timeoutParameter(DEFAULT_TIMEOUT_SECONDS),
} as const;

const PLACE = 'the script directory (sms.scripts_dir)';

/** The real path of the script, checked: inside the directory after links, a regular executable file. */
function scriptPath(script: string | undefined, scriptsDir: string): string {
  const name = nameInside(script, 'script', PLACE);
  try {
    return executableInside(scriptsDir, name, 'the script');
  } catch (e) {
    if (e instanceof ConfinedFileError) throw new SmsSendError(e.message);
    throw e;
  }
}

function check(settings: GatewaySettings): void {
  nameInside(settings.options.script, 'script', PLACE);
  checkMangling(settings.options.REGEXP);
  timeoutMs(settings.options.TIMEOUT, DEFAULT_TIMEOUT_SECONDS);
}

const childEnvironment = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'LANG']) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
};

function run(path: string, args: string[], message: string, wait: boolean, env: SendEnvironment, ms: number) {
  const name = path.slice(path.lastIndexOf(sep) + 1);
  const child = spawn(path, args, {
    cwd: env.scriptsDir,
    env: childEnvironment(),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  // A script that never reads its input must not fail the send.
  child.stdin.on('error', () => undefined);
  child.stdin.end(message);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < MAX_STDERR_BYTES) stderr += d.toString('utf8');
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), ms);
  killer.unref();
  child.on('close', () => clearTimeout(killer));
  return withDeadline<void>(
    ({ resolve, reject }) => {
      child.on('error', (e: NodeJS.ErrnoException) =>
        reject(new SmsSendError(`the script ${name} could not be started: ${e.code ?? e.message}`)),
      );
      if (!wait) {
        child.on('spawn', () => resolve());
        return;
      }
      child.on('close', (code, signal) => {
        if (code === 0) return resolve();
        const why = signal ? `was killed (${signal})` : `exited with status ${code}`;
        const said = stderr.trim().slice(0, MAX_STDERR_BYTES);
        reject(new SmsSendError(`the script ${name} ${why}${said ? `: ${said}` : ''}`));
      });
    },
    ms,
    () => {
      child.kill('SIGKILL');
      return new SmsSendError(`the script ${name} did not finish within ${ms / 1000} s`);
    },
  );
}

export const scriptProvider: SmsProvider = {
  module: 'privacyidea.lib.smsprovider.ScriptSMSProvider.ScriptSMSProvider',
  shortName: 'script',
  optionsAllowed: false,
  headersAllowed: false,
  parameters,
  check,
  async send(settings, phone, message, env) {
    const o = settings.options;
    const path = scriptPath(o.script, env.scriptsDir);
    const ms = timeoutMs(o.TIMEOUT, DEFAULT_TIMEOUT_SECONDS);
    await run(path, [manglePhone(phone, o.REGEXP), message], message, o.background !== 'background', env, ms);
  },
};
