// The benchmark's command line (main.ts): options, environment defaults and the scenario selection
// of --only, as pure functions so that test/scripts/ can check them without running anything.
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export const HELP = `npm run bench -- [options]

  --quick             short runs and small stores (1 s warm-up, 2 s measured, 1 000 HOTP tokens,
                      10 000 bulk tokens, 100 000 audit rows) to check that everything works
  --only LIST         scenarios, e.g. 1,2p,5,R (a number selects its variants: 1 = 1,1p; 5 = 5a,5b,5c;
                      2L is selected by name or by running everything)
  --db LIST           sqlite,postgres (default both; PostgreSQL is skipped when unreachable)
  --signing LIST      on,off (default both; R, RADIUS, has no signature: it runs once, with off
                      when off is in the list)
  --duration S        measured seconds per run (default 3; env BENCH_DURATION)
  --warmup S          warm-up seconds per run (default 1; env BENCH_WARMUP)
  --connections N     autocannon connections (default 32; env BENCH_CONNECTIONS); 5c and 6c always 1
  --hotp-tokens N     tokens of the HOTP round robin of scenario 2 (default 5000)
  --tokens N          tokens in the store for scenarios 5 and 2L (default 100000)
  --audit-rows N      audit rows in the store for scenarios 6 and 2L (default 1000000)
  --workers N         the server's [http] workers (default 1: one process; 0: one per core)
  --pg-url URL        PostgreSQL server to create the benchmark database on
                      (default postgres://postgres@127.0.0.1:5432/postgres; env BENCH_PG_URL)
  --results-dir DIR   where the <timestamp>.json results file is written
                      (default bench-results/ of the checkout; env BENCH_RESULTS_DIR)

  env BENCH_THROTTLE=on       the server with brute-force throttling on (off by default: scenarios
                      3 and 4 fail on purpose from one address and would be throttled)
  env BENCH_SERVER_NODE_ARGS  extra Node options for the server process only, e.g. for a profile:
                      BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"
`;

/** The run's options, as main.ts uses them and writes them into the results file (`options`). */
export interface BenchOptions {
  quick: boolean;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  workers: number;
  hotpTokens: number;
  bulkTokens: number;
  auditRows: number;
  ldapUsers: number;
  pgUrl: string;
  dbs: ('sqlite' | 'postgres')[];
  signing: boolean[];
}

export type CommandLine =
  | { help: true }
  | {
      help: false;
      opts: BenchOptions;
      /** --only as given (undefined: every scenario), see selectScenarios. */
      only: string | undefined;
      /** Directory of the results file. */
      resultsDir: string;
    };

function workersOption(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--workers: not a whole number ≥ 0: ${text}`);
  return n;
}

/**
 * The command line `argv` (without node and the script) with the environment `env`; `root` is the
 * checkout (default directory of the results). Throws on unknown options and invalid values.
 */
export function parseCommandLine(
  argv: string[],
  env: Record<string, string | undefined>,
  root: string,
): CommandLine {
  const { values: args } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      db: { type: 'string', default: 'sqlite,postgres' },
      signing: { type: 'string', default: 'on,off' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'hotp-tokens': { type: 'string' },
      tokens: { type: 'string' },
      'audit-rows': { type: 'string' },
      'pg-url': { type: 'string' },
      workers: { type: 'string' },
      'results-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (args.help) return { help: true };

  const num = (
    name: string,
    flag: string | undefined,
    envValue: string | undefined,
    quick: number,
    full: number,
  ): number => {
    const text = flag ?? envValue;
    if (text === undefined) return args.quick ? quick : full;
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: not a positive number: ${text}`);
    return n;
  };
  /** A count: a whole number, as num() otherwise. */
  const count = (...a: Parameters<typeof num>): number => {
    const n = num(...a);
    if (!Number.isInteger(n)) throw new Error(`${a[0]}: not a whole number: ${a[1] ?? a[2]}`);
    return n;
  };

  const opts: BenchOptions = {
    quick: args.quick,
    durationSeconds: num('--duration', args.duration, env.BENCH_DURATION, 2, 3),
    warmupSeconds: num('--warmup', args.warmup, env.BENCH_WARMUP, 1, 1),
    connections: count('--connections', args.connections, env.BENCH_CONNECTIONS, 32, 32),
    // 0 (one worker per core) is a valid value, so not through num().
    workers: args.workers === undefined ? 1 : workersOption(args.workers),
    hotpTokens: count('--hotp-tokens', args['hotp-tokens'], undefined, 1000, 5000),
    bulkTokens: count('--tokens', args.tokens, undefined, 10_000, 100_000),
    auditRows: count('--audit-rows', args['audit-rows'], undefined, 100_000, 1_000_000),
    ldapUsers: 1000,
    pgUrl: args['pg-url'] ?? env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    dbs: args.db.split(',').map((s) => s.trim()) as ('sqlite' | 'postgres')[],
    signing: args.signing.split(',').map((s) => {
      const v = s.trim();
      if (v !== 'on' && v !== 'off') throw new Error(`--signing: neither on nor off: ${v}`);
      return v === 'on';
    }),
  };
  for (const d of opts.dbs) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`--db: unknown ${d}`);
  const resultsDir = args['results-dir'] || env.BENCH_RESULTS_DIR || join(root, 'bench-results');
  return { help: false, opts, only: args.only, resultsDir };
}

/**
 * The scenarios `--only` selects, in the order of `all`: an id selects itself, a number its
 * variants (1 = 1, 1p; not 2L, which only its own id or running everything selects).
 */
export function selectScenarios<S extends { id: string }>(all: S[], only: string | undefined): S[] {
  if (only === undefined) return all;
  const wanted = only
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (wanted.length === 0) throw new Error('--only: names no scenario');
  const out = all.filter((s) =>
    wanted.some((w) => w === s.id || (/^\d+$/.test(w) && s.id.startsWith(w) && !s.id.endsWith('L'))),
  );
  const unknown = wanted.filter((w) => !all.some((s) => s.id === w || s.id.startsWith(w)));
  if (unknown.length) throw new Error(`--only: unknown scenario ${unknown.join(', ')}`);
  return out;
}
