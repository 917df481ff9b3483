// privacyIDEA's ScriptSMSProvider: an executable of the scripts directory (sms.scripts_dir of the
// configuration, which only the operator sets) is run with the phone number and the message as its
// two arguments; the message is also written to its standard input, as privacyIDEA passes it.
// `wait` waits for its exit status (0: sent); `background` counts a started script as sent. The
// script name must name a file inside the directory: no absolute path, no `..`, and no symbolic
// link leading out of it. The script gets only PATH and LANG of the server's environment (the
// server's own variables may hold database credentials) and is killed after TIMEOUT.
import { spawn } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { ParameterError } from '../../errors.ts';
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

/** Refuses a script name that could leave the directory, before any file is looked at. */
function checkName(script: string | undefined): string {
  const name = script ?? '';
  if (name === '' || name.includes('\u0000') || isAbsolute(name) || name.split(/[\\/]/).includes('..')) {
    throw new ParameterError(
      `script: '${name}' must name a file inside the script directory (sms.scripts_dir), without '..' or an absolute path`,
    );
  }
  return name;
}

const within = (path: string, dir: string) => path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/** The real path of the script, checked: inside the directory after links, a regular executable file. */
function scriptPath(script: string | undefined, scriptsDir: string): string {
  const name = checkName(script);
  let dir: string;
  let real: string;
  try {
    dir = realpathSync(scriptsDir);
    real = realpathSync(join(dir, name));
  } catch (e) {
    throw new SmsSendError(
      `the script ${name} does not exist in ${scriptsDir} (${(e as NodeJS.ErrnoException).code})`,
    );
  }
  if (!within(real, dir)) throw new SmsSendError(`the script ${name} leads out of ${scriptsDir}`);
  const stats = statSync(real);
  if (!stats.isFile()) throw new SmsSendError(`the script ${name} is not a regular file`);
  if ((stats.mode & 0o111) === 0) throw new SmsSendError(`the script ${name} is not executable`);
  return real;
}

function check(settings: GatewaySettings): void {
  checkName(settings.options.script);
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
