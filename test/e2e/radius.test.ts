// `authsrv serve` with radius.listen, as an operator runs it: the RADIUS client added with
// `authsrv radius client add`, then radclient (freeradius-utils) against the running server:
// Status-Server answered, an unknown user rejected through the validate service with its audit
// row, both counted in the /metrics of the metrics listener (with two workers: the primary's own
// counts added to the workers' sum); in one process and with two HTTP workers (the primary serves
// RADIUS). Off by default.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, type Cli, cleanEnv, launch, stop } from '../helpers/authsrv-process.ts';
import { parseExposition, sampleValue } from '../helpers/prometheus.ts';
import { run } from '../helpers/run.ts';

const RADIUS_ON = /^RADIUS on udp 127\.0\.0\.1:(\d+)$/m;
const LISTENING = /^authsrv \S+ listening on /m;
const METRICS_ON = /^metrics on (http:\S+)$/m;
const SECRET = 'serve-radius-secret';

function radclient(port: number, code: string, attributes: string[]) {
  return run('radclient', ['-x', '-r', '1', '-t', '2', `127.0.0.1:${port}`, code, SECRET], {
    input: `${[...attributes, 'Message-Authenticator = 0x00'].join('\n')}\n`,
  });
}

describe.each([1, 2])('authsrv serve with radius.listen and %i HTTP process(es)', (workers) => {
  const home = mkdtempSync(join(tmpdir(), 'authsrv-radius-'));
  const env = {
    AUTHSRV_DATA_DIR: join(home, 'data'),
    AUTHSRV_HTTP_PORT: '0',
    AUTHSRV_HTTP_WORKERS: String(workers),
  };
  let server: Cli | undefined;
  afterAll(async () => {
    if (server) await stop(server);
    rmSync(home, { recursive: true, force: true });
  });

  it('answers the RADIUS clients added with the CLI', async () => {
    const added = await run(
      process.execPath,
      [BIN, 'radius', 'client', 'add', 'local', '--address', '127.0.0.1', '--secret-stdin'],
      { input: `${SECRET}\n`, cwd: home, env: cleanEnv(env) },
    );
    expect(added.stdout, added.stderr).toBe("RADIUS client 'local' saved.\n");
    server = launch(
      ['serve'],
      {
        ...env,
        AUTHSRV_RADIUS_LISTEN: '127.0.0.1:0',
        AUTHSRV_METRICS_ENABLED: 'true',
        AUTHSRV_METRICS_LISTEN: '127.0.0.1:0',
      },
      home,
    );
    await server.waitFor(LISTENING);
    const port = Number((await server.waitFor(RADIUS_ON))[1]);
    const metricsUrl = (await server.waitFor(METRICS_ON))[1]!;
    const status = await radclient(port, 'status', []);
    expect(status.stdout, status.stderr).toMatch(/Received Access-Accept/);
    const rejected = await radclient(port, 'auth', ['User-Name = "nobody"', 'User-Password = "123456"']);
    expect(rejected.stdout, rejected.stderr).toMatch(/Received Access-Reject/);
    const audit = await run(process.execPath, [BIN, 'audit', 'list', '--json'], {
      cwd: home,
      env: cleanEnv(env),
    });
    expect(audit.stdout).toContain('RADIUS Access-Request');
    const metrics = parseExposition(await (await fetch(metricsUrl)).text());
    expect(sampleValue(metrics, 'authsrv_radius_requests_total', { result: 'status' })).toBe(1);
    expect(sampleValue(metrics, 'authsrv_radius_requests_total', { result: 'reject' })).toBe(1);
  });

  it('starts no RADIUS listener without radius.listen', async () => {
    if (server) await stop(server);
    server = launch(['serve'], env, home);
    await server.waitFor(LISTENING);
    expect(server.output().stdout).not.toMatch(/RADIUS on/);
  });
});
