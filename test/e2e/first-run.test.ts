// The first command of a fresh clone, as the README has it (`npx authsrv …`), run by the
// machine's own npm and Node (20 here): nothing but authsrv's own output, no npm EBADENGINE
// warnings; and bin/authsrv started by a Node older than 24 says what to do instead of a stack.
import { delimiter, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/authsrv-process.ts';
import { run } from '../helpers/run.ts';

const root = resolve(import.meta.dirname, '../..');

/** The test run's environment with PATH as a login shell has it: without node_modules/.bin. */
function machineEnv(): NodeJS.ProcessEnv {
  const env = cleanEnv({});
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter);
  return env;
}

describe('the first command of a fresh clone', () => {
  it('prints only authsrv output under `npx authsrv`, without npm warnings', async () => {
    const r = await run('npx', ['authsrv', '--version'], { cwd: root, env: machineEnv() });
    expect(r.stderr).not.toContain('EBADENGINE');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(r.status).toBe(0);
  });

  it("answers bin/authsrv under the machine's Node by its version: Node 24 runs it, older ones get a hint", async () => {
    const env = machineEnv();
    const version = await run('node', ['--version'], { env });
    const major = Number(/^v(\d+)/.exec(version.stdout)![1]);
    const r = await run('node', [resolve(root, 'bin/authsrv'), '--version'], { env });
    if (major >= 24) {
      expect(r.status).toBe(0);
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    } else {
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        `authsrv: needs Node 24, this is Node ${version.stdout.trim().slice(1)}. Run it as \`npx authsrv …\` after \`npm ci\` (which installs Node 24 in node_modules), or use the single executable.`,
      ]);
    }
  });
});
