// `npm run bench`: starts authsrv from this checkout on fresh data (SQLite, and PostgreSQL when it is
// reachable), creates the fixtures through the API, drives each scenario with autocannon from a
// second process (driver.ts) with response signing on and off, checks every answer, and prints one
// table (Markdown) plus bench-results/<timestamp>.json. Exit code 1 when any scenario failed.
// Options (args.ts), scenarios (scenarios.ts), the PIN hash bound (hash-bound.ts), verdicts and
// table (report.ts), and scenario 8's silent SMTP server (silent-listener.ts) and e-mail challenge
// stream (mail-stream.ts) have modules of their own, tested by test/scripts/.
//
// Usage: node scripts/bench/main.ts [--quick] [--only 1,2p,5] [--db sqlite,postgres] [--signing on,off]
//        [--duration S] [--warmup S] [--connections N] [--hotp-tokens N] [--tokens N] [--audit-rows N]
//        [--pg-url URL] [--results-dir DIR]          (npm run bench -- …; --help lists everything)
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_ARGON2, hashPassword, verifyPassword } from '../../src/crypto/password-hash.ts';
import { defaultDatabaseUrl } from '../../src/store/database.ts';
import { type OperationCounts, startSlapd } from '../fixtures/slapd.ts';
import { Api } from './api.ts';
import { HELP, parseCommandLine, selectScenarios } from './args.ts';
import {
  addRadiusClient,
  addWebhookDefinition,
  createBulkTokens,
  createSilentSmtpServer,
  createTokens,
  createUserStores,
  insertAuditRows,
  LDAP_PASSTHRU_REALM,
  tokenGroups,
  writePasswdFile,
} from './fixtures.ts';
import { hashBoundNote, hashesPerSecond } from './hash-bound.ts';
import { type MailStream, startMailStream } from './mail-stream.ts';
import { continuesRoundRobin, type DriverPlan, type DriverResult } from './plan.ts';
import {
  failedStep,
  failureReport,
  hangingMailNote,
  judge,
  judgeMail,
  type Row,
  renderTable,
} from './report.ts';
import { type RunEnv, type Scenario, scenarioList } from './scenarios.ts';
import { type AuthsrvServer, ROOT, startServer } from './server.ts';
import { type SilentListener, startSilentListener } from './silent-listener.ts';
import { startWebhookListener, type WebhookListener } from './webhook-listener.ts';

// --- options ---------------------------------------------------------------------------------------

const cli = parseCommandLine(process.argv.slice(2), process.env, ROOT);
if (cli.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const { opts, resultsDir } = cli;

// --- scenarios -------------------------------------------------------------------------------------

const SCENARIOS = scenarioList(opts.bulkTokens);

// --- results ---------------------------------------------------------------------------------------

const rows: Row[] = [];
const notes: string[] = [];
const log = (text: string) => process.stderr.write(`${text}\n`);

// --- the PIN hash bound ----------------------------------------------------------------------------

const cores = availableParallelism();
const pinHash = await hashPassword('4711');
const verifyPin = () => verifyPassword('4711', pinHash);

/**
 * PIN verifications per second with every core hashing at once: what "cores ÷ hash time" assumes,
 * measured (`cores` lanes of 20 each, about 0.6 s; shorter measurements scatter more). This
 * process's verifyPassword lets at most MAX_CONCURRENT_HASHES run at once, as the server's does, so
 * on more than 3 cores it measures that limit. A PIN run is compared with the bound measured just
 * before it: on a shared VM the hash time moves by a third between minutes.
 */
const measureHashBound = () => hashesPerSecond(verifyPin, cores, 20);

/**
 * Waits (at most 3 s) until the server used at most one clock tick of CPU in 100 ms: the last
 * requests of a run may still be hashing after the driver has gone.
 */
async function serverIdle(server: AuthsrvServer): Promise<void> {
  let last = server.cpuMs();
  for (let i = 0; i < 30; i++) {
    await sleep(100);
    const now = server.cpuMs();
    if (now - last <= 10) return;
    last = now;
  }
}

// --- one run ---------------------------------------------------------------------------------------

interface Probe {
  stop(): { samples: number; p50: number; max: number };
}

/** GET /healthz every 100 ms: whether the server answers other requests while it is loaded. */
function probeHealthz(url: string): Probe {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const r = await fetch(`${url}/healthz`);
        await r.arrayBuffer();
        times.push(performance.now() - t0);
      } catch {
        times.push(Number.POSITIVE_INFINITY);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop() {
      running = false;
      void loop;
      const sorted = [...times].sort((a, b) => a - b);
      return {
        samples: sorted.length,
        p50: sorted[Math.floor(sorted.length / 2)] ?? 0,
        max: sorted.at(-1) ?? 0,
      };
    },
  };
}

interface Ldap {
  operationCounts(): Promise<OperationCounts>;
}

const minus = (a: OperationCounts, b: OperationCounts): OperationCounts => ({
  search: a.search - b.search,
  bind: a.bind - b.bind,
  readerBind: a.readerBind - b.readerBind,
  connection: a.connection - b.connection,
});

/**
 * A scenario with a user group first logs its users in, unmeasured, until each was reached once, so
 * that the measured run shows what a login costs for a user seen before: a time-based warm-up
 * reaches only part of 5 000 HOTP users (scenario 2, 2L) or 1 000 LDAP users. An LDAP user's first
 * lookup is a search by design (the resolver caches found users); any user's first login reads its
 * token rows into the database's cache. A workload that continues from `seq` (HOTP, challenge)
 * runs rounds until all users were reached, and `env.seq` moves on past every OTP sent, so the
 * measured run submits fresh ones; the others start at the first user every run, so a run that fell
 * short is repeated twice as long. At most 10 rounds; a failed answer throws.
 *
 * PIN scenarios without LDAP are not primed: their users are in the passwd resolver, which reads the
 * whole file at once (no cache per user), and the benchmark sets no auth_cache policy, so a first
 * login adds only the reading of one token's rows, microseconds against a 30 ms hash; and the
 * warm-up reaches most or all of their 64 users anyway (32 logins start at once). Priming them would
 * cost seconds of argon2id per run and change nothing measurable.
 */
async function primeUsers(
  s: Scenario,
  env: RunEnv,
  server: AuthsrvServer,
  dir: string,
  signed: boolean,
): Promise<void> {
  if (s.hashes > 0 && !s.ldap) return;
  let reached = 0;
  let seconds = 2;
  for (let round = 0; round < 10; round++) {
    const workload = s.workload(env);
    if (!('group' in workload)) return;
    const continues = continuesRoundRobin(workload);
    const plan: DriverPlan = {
      url: server.url,
      connections: s.connections ?? opts.connections,
      warmupSeconds: 0.5,
      durationSeconds: seconds,
      signed,
      workload,
    };
    const result = await runDriver(plan, dir, async () => undefined);
    if (continues) env.seq[s.groups[0]!] = result.seq;
    const failure = judge(result);
    if (failure !== undefined) throw new Error(`logging the users in before the run failed: ${failure}`);
    const started = result.warmup.started + result.measured.started;
    if (continues) reached += started;
    else {
      reached = started;
      seconds = Math.min(2 * seconds, 16);
    }
    if (reached >= workload.group.count) return;
  }
  log(`      (not every user was reached before the run: ${reached} logins after 10 rounds)`);
}

const connectionsOf = (s: Scenario) => s.connections ?? opts.connections;

async function runDriver(
  plan: DriverPlan,
  dir: string,
  onMeasureStart: () => Promise<void>,
): Promise<DriverResult> {
  const file = join(dir, 'plan.json');
  writeFileSync(file, JSON.stringify(plan));
  const child: ChildProcess = fork(join(import.meta.dirname, 'driver.ts'), [file], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    let result: DriverResult | undefined;
    child.on('message', (m: { event: string; result?: DriverResult }) => {
      if (m.event === 'measure') onMeasureStart().catch((e: unknown) => reject(e));
      else if (m.event === 'result') result = m.result;
    });
    child.on('exit', (code) => {
      if (result) resolve(result);
      else reject(new Error(`driver exited with code ${code} without a result`));
    });
  });
}

async function runScenario(
  s: Scenario,
  dbName: string,
  signed: boolean,
  server: AuthsrvServer,
  env: RunEnv,
  dir: string,
  ldap: Ldap | undefined,
  silentSmtp: SilentListener | undefined,
  webhook: WebhookListener | undefined,
): Promise<void> {
  const row: Row = {
    scenario: s.id,
    title: s.title,
    db: dbName,
    // The RADIUS path has no response signature: its one run per database is not a signing mode.
    signing: s.radius ? 'n/a' : signed ? 'on' : 'off',
    unit: s.unit,
    rate: 0,
    p50: 0,
    p99: 0,
    rssMiB: 0,
    ok: false,
    notes: [],
  };
  rows.push(row);
  log(`  ${s.id.padEnd(3)} ${s.title} (${dbName}, signing ${row.signing}) …`);
  let removeWebhook: (() => Promise<void>) | undefined;
  try {
    if (s.webhook) {
      if (!webhook) throw new Error('no webhook listener was started');
      const api = new Api(server.url);
      await api.login('admin', env.adminPassword);
      removeWebhook = await addWebhookDefinition(api, webhook.url);
    }
    await primeUsers(s, env, server, dir, signed);
    if (s.hashes > 0) {
      await serverIdle(server);
      row.hashBound = await measureHashBound();
    }
    const workload = s.workload(env);
    if (s.connections !== undefined) row.notes.push(`${s.connections} connection`);
    if (s.radius)
      row.notes.push(
        `UDP, ${connectionsOf(s)} requests in flight; no response signature on this path, run once per database`,
      );
    const plan: DriverPlan = {
      url: server.url,
      connections: s.connections ?? opts.connections,
      warmupSeconds: opts.warmupSeconds,
      durationSeconds: opts.durationSeconds,
      signed,
      workload,
    };
    const continues = continuesRoundRobin(workload);
    let mailStream: MailStream | undefined;
    let smtpAcceptedBefore = 0;
    if (s.hangingMail) {
      // The first phase: the same logins without the hanging sender (its own warm-up and window).
      let aloneCpuStart = 0;
      const alone = await runDriver(plan, dir, async () => {
        aloneCpuStart = server.cpuMs();
      });
      const aloneCpuMs = server.cpuMs() - aloneCpuStart;
      if (continues) env.seq[s.groups[0]!] = alone.seq;
      const failure = judge(alone);
      if (failure !== undefined) throw new Error(`the run without the hanging sender failed: ${failure}`);
      const a = alone.measured;
      row.alone = {
        rate: a.good / a.seconds,
        p50: a.p50,
        p99: a.p99,
        cpuMsPerUnit: aloneCpuMs / a.good,
        measured: a,
      };
      // The second phase continues the round robin; the stream runs through its warm-up and window.
      plan.workload = s.workload(env);
      smtpAcceptedBefore = silentSmtp?.accepted() ?? 0;
      mailStream = startMailStream({
        url: server.url,
        group: env.groups[s.hangingMail.group]!,
        connections: s.hangingMail.connections,
        signed,
      });
    }
    let probe: Probe | undefined;
    let ldapBefore = ldap && s.ldap ? await ldap.operationCounts() : undefined;
    const ldapStart = ldapBefore;
    let ldapCold: OperationCounts | undefined;
    let cpuStart = 0;
    let hooksBefore = 0;
    const result = await runDriver(plan, dir, async () => {
      server.takeMaxRss();
      cpuStart = server.cpuMs();
      hooksBefore = webhook?.received() ?? 0;
      probe = probeHealthz(server.url);
      if (ldapBefore && ldap) {
        const now = await ldap.operationCounts();
        ldapCold = minus(now, ldapBefore);
        ldapBefore = now;
      }
    });
    row.healthz = probe?.stop();
    row.rssMiB = server.takeMaxRss() / 1024;
    if (continues) env.seq[s.groups[0]!] = result.seq;
    const mail = await mailStream?.stop();
    const m = result.measured;
    row.warmup = result.warmup;
    row.measured = m;
    row.samples = result.samples;
    row.rate = m.good / m.seconds;
    if (m.good > 0) row.cpuMsPerUnit = (server.cpuMs() - cpuStart) / m.good;
    row.p50 = m.p50;
    row.p99 = m.p99;
    if (ldap && ldapBefore && ldapStart && ldapCold) {
      const measured = minus(await ldap.operationCounts(), ldapBefore);
      // Operations over logins started in the same window (the ones still in flight at the end
      // did their search too). `bind` counts every BIND request: the users' (password checks) and
      // the resolver's own as BINDDN (cn=reader) when it opens its service connection, which are
      // also shown apart, as counts, with the connections slapd accepted.
      row.ldapOps = {
        search: measured.search,
        bind: measured.bind,
        readerBind: measured.readerBind,
        connection: measured.connection,
        logins: m.started,
        coldSearch: ldapCold.search,
        coldBind: ldapCold.bind,
        coldReaderBind: ldapCold.readerBind,
        coldConnection: ldapCold.connection,
        coldLogins: result.warmup.started,
      };
      const per = (n: number, d: number) => (d ? (n / d).toFixed(2) : '-');
      const o = row.ldapOps;
      row.notes.push(
        `LDAP search+bind per login: warm-up ${per(o.coldSearch, o.coldLogins)}+${per(o.coldBind, o.coldLogins)}, ` +
          `measured ${per(o.search, o.logins)}+${per(o.bind, o.logins)} ` +
          `(binds as the reader ${o.coldReaderBind}+${o.readerBind}, connections ${o.coldConnection}+${o.connection}, ` +
          `logins ${o.coldLogins}+${o.logins})`,
      );
    }
    if (s.webhook && webhook) {
      row.webhook = { received: webhook.received() - hooksBefore, logins: m.good };
      row.notes.push(
        `${row.webhook.received} webhook POSTs received for ${m.good} logins in the measured window`,
      );
    }
    if (mail && s.hangingMail) {
      row.mail = {
        ...mail,
        smtpConnections: (silentSmtp?.accepted() ?? 0) - smtpAcceptedBefore,
        connections: s.hangingMail.connections,
        smtpTimeoutSeconds: s.hangingMail.smtpTimeoutSeconds,
      };
      row.notes.push(hangingMailNote(row));
    }
    if (row.hashBound !== undefined) row.notes.push(hashBoundNote(row.rate, s.hashes, row.hashBound));
    if (row.healthz && s.hashes > 0)
      row.notes.push(`/healthz p50 ${row.healthz.p50.toFixed(1)} ms, max ${row.healthz.max.toFixed(0)} ms`);
    const failure =
      judge(result) ??
      (mail ? judgeMail(mail) : undefined) ??
      (row.webhook && row.webhook.received < row.webhook.logins
        ? `the webhook listener received ${row.webhook.received} POSTs for ${row.webhook.logins} logins`
        : undefined);
    if (failure !== undefined) row.failure = failure;
    else row.ok = true;
  } catch (e) {
    row.failure = (e as Error).stack ?? String(e);
  } finally {
    await removeWebhook?.();
  }
  if (row.ok) {
    log(
      `      ${row.rate.toFixed(0)} ${row.unit}, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms, RSS ${row.rssMiB.toFixed(0)} MiB, CPU ${(row.cpuMsPerUnit ?? 0).toFixed(2)} ms/unit ${row.notes.join('; ')}`,
    );
  } else log(`      FAILED: ${row.failure}`);
}

// --- databases -------------------------------------------------------------------------------------

async function postgresDatabase(): Promise<{ url: string; drop(): Promise<void> } | string> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: opts.pgUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (e) {
    return `PostgreSQL at ${opts.pgUrl} is unreachable (${(e as Error).message}): skipped`;
  }
  const name = `authsrv_bench_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(opts.pgUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: opts.pgUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  log(`  ${what} …`);
  const r = await fn();
  log(`    done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return r;
}

async function benchDialect(
  dbName: 'sqlite' | 'postgres',
  scenarios: Scenario[],
  slapd: Awaited<ReturnType<typeof startSlapd>> | undefined,
  silentSmtp: SilentListener | undefined,
  webhook: WebhookListener | undefined,
): Promise<void> {
  log(`\n== ${dbName} ==`);
  let databaseUrl = '';
  let drop: (() => Promise<void>) | undefined;
  if (dbName === 'postgres') {
    const pgdb = await postgresDatabase();
    if (typeof pgdb === 'string') {
      notes.push(pgdb);
      log(`  ${pgdb}`);
      return;
    }
    databaseUrl = pgdb.url;
    drop = pgdb.drop;
  }
  const dir = mkdtempSync(join(tmpdir(), `authsrv-bench-${dbName}-`));
  const storeUrl = databaseUrl || defaultDatabaseUrl(join(dir, 'data'));
  let server: AuthsrvServer | undefined;
  try {
    const groups = tokenGroups(opts.hotpTokens, opts.ldapUsers);
    const needed = [...new Set(scenarios.flatMap((s) => s.groups))].map((g) => groups[g]!);
    const small = scenarios.filter((s) => s.store === 'small');
    const large = scenarios.filter((s) => s.store === 'large');
    const signings = opts.signing;

    const radius = scenarios.some((s) => s.radius);
    server = await startServer({
      dir,
      databaseUrl,
      signResponses: signings[0]!,
      workers: opts.workers,
      radius,
    });
    const adminPassword = server.adminPassword;
    if (!adminPassword) throw new Error('the first start printed no administrator password');
    const api = new Api(server.url);
    await api.login('admin', adminPassword);
    await timed('users, realms, policy', async () => {
      const passwd = writePasswdFile(dir, needed);
      const ldap =
        slapd && needed.some((g) => g.resolver === 'ldap' || g.resolver === LDAP_PASSTHRU_REALM)
          ? {
              url: slapd.url,
              baseDn: slapd.baseDn,
              bindDn: 'cn=reader,dc=example,dc=org',
              bindPw: 'readerpass',
            }
          : undefined;
      await createUserStores(api, passwd, ldap);
      const hanging = scenarios.find((s) => s.hangingMail)?.hangingMail;
      if (hanging && silentSmtp) {
        await createSilentSmtpServer(api, silentSmtp.port, hanging.smtpTimeoutSeconds);
      }
    });
    for (const g of needed) {
      if (g.token === 'none') continue;
      await timed(`${g.count} ${g.token} tokens for ${g.prefix}* in realm ${g.realm}`, () =>
        createTokens(api, g),
      );
    }
    const env: RunEnv = { groups, seq: {}, adminPassword, jwt: api.token };
    if (radius) {
      const secret = await addRadiusClient(api);
      env.radius = { port: server.radiusPort!, secret };
    }

    const restart = async (signed: boolean) => {
      await server!.stop();
      server = undefined;
      server = await startServer({ dir, databaseUrl, signResponses: signed, workers: opts.workers, radius });
      if (env.radius) env.radius.port = server.radiusPort!;
      const a = new Api(server.url);
      env.jwt = await a.login('admin', adminPassword);
      return a;
    };

    let current = signings[0]!;
    // The RADIUS scenario runs once per database: with signing off when that is run, else the first.
    const radiusPass = signings.includes(false) ? false : signings[0]!;
    if (small.length) {
      for (const [i, signed] of signings.entries()) {
        const these = small.filter((s) => !s.radius || signed === radiusPass);
        if (!these.length) continue;
        if (i > 0 || current !== signed) await restart(signed);
        current = signed;
        for (const s of these)
          await runScenario(s, dbName, signed, server!, env, dir, slapd, silentSmtp, webhook);
      }
    }
    if (large.length) {
      const a = new Api(server!.url);
      await a.login('admin', adminPassword);
      await timed(`${opts.bulkTokens} bulk tokens (POST /token/load, OATH CSV)`, () =>
        createBulkTokens(a, opts.bulkTokens),
      );
      await timed(`${opts.auditRows} audit rows (INSERT … SELECT, not through the API)`, () =>
        insertAuditRows(storeUrl, opts.auditRows),
      );
      // The signing mode the server runs with now goes first: one restart fewer.
      const order = [current, ...signings.filter((s) => s !== current)].filter((s) => signings.includes(s));
      for (const [i, signed] of order.entries()) {
        if (i > 0) await restart(signed);
        for (const s of large)
          await runScenario(s, dbName, signed, server!, env, dir, slapd, silentSmtp, webhook);
      }
    }
  } catch (e) {
    const msg = `${dbName}: ${(e as Error).stack ?? e}`;
    rows.push(failedStep('set-up', dbName, msg));
    log(`  FAILED: ${msg}`);
  } finally {
    try {
      await server?.stop();
    } catch (e) {
      rows.push(failedStep('clean shutdown (SIGTERM)', dbName, String(e)));
    }
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- main ------------------------------------------------------------------------------------------

const started = performance.now();
const scenarios = selectScenarios(SCENARIOS, cli.only);
log(
  `authsrv benchmark: ${scenarios.map((s) => s.id).join(', ')} on ${opts.dbs.join(', ')}, signing ${opts.signing
    .map((s) => (s ? 'on' : 'off'))
    .join(
      '/',
    )}; ${opts.connections} connections, ${opts.warmupSeconds} s warm-up + ${opts.durationSeconds} s per run`,
);
const msPerHash = 1000 / (await hashesPerSecond(verifyPin, 1, 20));
const bound = {
  msPerHash,
  cores,
  coresOverHashTime: cores / (msPerHash / 1000),
  /** Measured with `cores` lanes at the start; each PIN row has its own (Row.hashBound). */
  perSecond: await measureHashBound(),
};
const boundText =
  `argon2id (${DEFAULT_ARGON2.memoryKiB} KiB, ${DEFAULT_ARGON2.passes} passes, parallelism ${DEFAULT_ARGON2.parallelism}) ` +
  `takes ${bound.msPerHash.toFixed(1)} ms per hash alone (${cores} cores ÷ that = ${bound.coresOverHashTime.toFixed(0)}/s); ` +
  `${cores} lanes hashing at once did ${bound.perSecond.toFixed(0)}/s at the start, the bound of PIN-checked logins. ` +
  "It is measured again just before each PIN run, whose note compares the run's rate with that.";
log(`PIN hash bound: ${boundText}`);

const slapd = scenarios.some((s) => s.ldap)
  ? await startSlapd({ users: opts.ldapUsers }).catch((e: unknown) => {
      notes.push(`slapd could not start, LDAP scenarios skipped: ${(e as Error).message}`);
      return undefined;
    })
  : undefined;
const runnable = slapd ? scenarios : scenarios.filter((s) => !s.ldap);
// Scenario 8's SMTP server: accepts and never answers (the benchmark's own, like slapd).
const silentSmtp = scenarios.some((s) => s.hangingMail) ? await startSilentListener() : undefined;
// Scenario 9's webhook receiver.
const webhook = scenarios.some((s) => s.webhook) ? await startWebhookListener() : undefined;
try {
  for (const d of opts.dbs) await benchDialect(d, runnable, slapd, silentSmtp, webhook);
} finally {
  await slapd?.stop();
  await silentSmtp?.close();
  await webhook?.close();
}
const totalSeconds = (performance.now() - started) / 1000;

// --- report ----------------------------------------------------------------------------------------

const cpu = cpus()[0]?.model ?? 'unknown CPU';
const machine = `${cpu}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
const fmt = (n: number, d = 1) => n.toFixed(d);
const table = renderTable(rows);

process.stdout.write(
  `\n${table}\n\nMachine: ${machine}. Server: ${opts.workers === 1 ? 'one process' : `[http] workers = ${opts.workers}`}. ${opts.connections} connections, ${opts.warmupSeconds} s warm-up + ${opts.durationSeconds} s measured per run; ` +
    `${opts.hotpTokens} HOTP tokens in the round robin of scenario 2; for 5, 6 and 2L ${opts.bulkTokens} bulk tokens (imported through ` +
    `POST /token/load) and ${opts.auditRows} audit rows (inserted directly with SQL, not through the API).\n` +
    `PIN hash bound: ${boundText}\n` +
    `Latency is per request, for scenario 4 per login (trigger + answer), measured by the driver. Server CPU is the server process's user + system time (all threads) during the measured run divided by the units that succeeded. Total time ${fmt(totalSeconds, 0)} s.\n` +
    notes.map((n) => `Note: ${n}\n`).join(''),
);

mkdirSync(resultsDir, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const jsonFile = join(resultsDir, `${stamp}.json`);
writeFileSync(
  jsonFile,
  `${JSON.stringify({ date: new Date().toISOString(), machine, options: opts, hashBound: bound, totalSeconds, notes, results: rows }, null, 2)}\n`,
);
process.stdout.write(`Results: ${jsonFile}\n`);

if (rows.length === 0) {
  process.stderr.write(
    '\nBENCHMARK FAILED: nothing was measured (every database was skipped; see the notes above).\n',
  );
  process.exit(1);
}
const failure = failureReport(rows);
if (failure !== undefined) {
  process.stderr.write(failure);
  process.exit(1);
}
