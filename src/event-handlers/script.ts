// Script: runs an executable of the scripts directory (event.scripts_dir of the configuration,
// which only the operator sets), one action per executable file (reference 7.1 "Script"). The
// options add `--serial <s>`, `--user <u>`, `--realm <r>`, `--logged_in_user <u>` and
// `--logged_in_role <r>` arguments. The script runs without a shell, with only PATH and LANG of the
// server's environment, in the directory, and is killed after TIMEOUT_MS; what it writes is logged.
// `wait` waits for its exit: a failure fails the run, and with raise_error the request too;
// `background` only starts it.
import { execFile } from 'node:child_process';
import { ConfinedFileError, executableInside, executablesIn, nameInside } from '../files/index.ts';
import {
  type ActionSpecs,
  type EventHandlerModule,
  type EventRun,
  HandlerAbortError,
  type OptionSpec,
  optionIsTrue,
} from './module.ts';

/** How long a script may run before it is killed. */
const TIMEOUT_MS = 60_000;
/** The output kept of each stream for the log. */
const MAX_OUTPUT_BYTES = 64 * 1024;

const flag = (description: string): OptionSpec => ({ type: 'bool', description });

const OPTIONS: Readonly<Record<string, OptionSpec>> = {
  background: {
    type: 'str',
    required: true,
    description: 'Wait for the script to finish (wait) or only start it (background).',
    value: ['background', 'wait'],
  },
  raise_error: flag('With wait: a failing script fails the request.'),
  sync_to_database: flag('Accepted for privacyIDEA compatibility; authsrv commits before a script runs.'),
  serial: flag('Add --serial <serial of the request>.'),
  user: flag("Add --user <login name of the request's user>."),
  realm: flag("Add --realm <realm of the request's user>."),
  logged_in_user: flag('Add --logged_in_user <name of the authenticated caller>.'),
  logged_in_role: flag('Add --logged_in_role <admin or user>.'),
};

/** The arguments the options ask for, in privacyIDEA's order. */
function argumentsOf(run: EventRun): string[] {
  const o = run.options;
  const out: string[] = [];
  const add = (option: string, value: string | undefined) => {
    if (optionIsTrue(o[option])) out.push(`--${option}`, value ?? '');
  };
  add('serial', run.tags.serial);
  add('user', run.tags.username);
  add('realm', run.tags.realm);
  add('logged_in_user', run.caller?.username);
  add('logged_in_role', run.caller?.role);
  return out;
}

const childEnvironment = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'LANG']) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
};

interface Outcome {
  ok: boolean;
  why: string;
}

/** Runs the script to its end (or the timeout); logs its output; never rejects. */
function execute(run: EventRun, name: string, path: string, dir: string, args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      path,
      args,
      {
        cwd: dir,
        env: childEnvironment(),
        shell: false,
        timeout: TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const said = `${stdout}${stderr ? `\n${stderr}` : ''}`.trim();
        if (said) run.log('authsrv.event.script', 'INFO', `script ${name}: ${said}`);
        if (!error) return resolve({ ok: true, why: '' });
        const e = error as NodeJS.ErrnoException & { killed?: boolean; signal?: string | null };
        const why =
          typeof e.code === 'number'
            ? `exited with status ${e.code}`
            : e.killed || e.signal
              ? `was killed (${e.signal ?? 'timeout'})`
              : `could not be run: ${e.code ?? e.message}`;
        run.log('authsrv.event.script', 'WARNING', `script ${name} ${why}`);
        resolve({ ok: false, why });
      },
    );
  });
}

function scriptsDir(run: EventRun): string {
  if (!run.settings) throw new Error('Script: the server lent no scripts directory');
  return run.settings.scriptsDir;
}

export const scriptModule: EventHandlerModule = {
  name: 'Script',
  positions: ['post', 'pre'],
  actions: {},
  actionsWith(settings): ActionSpecs {
    return Object.fromEntries(executablesIn(settings.scriptsDir).map((name) => [name, OPTIONS]));
  },
  async run(action, run) {
    const dir = scriptsDir(run);
    const name = nameInside(action, 'action', 'the event scripts directory (event.scripts_dir)');
    let path: string;
    try {
      path = executableInside(dir, name, 'the script');
    } catch (e) {
      if (e instanceof ConfinedFileError) throw new Error(`Script: ${e.message}`);
      throw e;
    }
    const args = argumentsOf(run);
    if (run.options.background === 'background') {
      // Started, not awaited: its end is only logged.
      void execute(run, name, path, dir, args);
      return true;
    }
    const outcome = await execute(run, name, path, dir, args);
    if (!outcome.ok && optionIsTrue(run.options.raise_error)) {
      throw new HandlerAbortError(`The event handler script ${name} failed: it ${outcome.why}.`);
    }
    return outcome.ok;
  },
};
