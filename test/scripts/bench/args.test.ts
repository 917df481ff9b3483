// The benchmark's command line (scripts/bench/args.ts) and the scenario selection of --only.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP, parseCommandLine, selectScenarios } from '../../../scripts/bench/args.ts';
import { tokenGroups } from '../../../scripts/bench/fixtures.ts';
import { scenarioList } from '../../../scripts/bench/scenarios.ts';

const ROOT = '/checkout';
const parse = (argv: string[], env: Record<string, string | undefined> = {}) => {
  const cli = parseCommandLine(argv, env, ROOT);
  if (cli.help) throw new Error('unexpected --help');
  return cli;
};

describe('bench command line', () => {
  it('defaults: full runs on both databases, signing on and off, results in bench-results/', () => {
    const { opts, only, resultsDir } = parse([]);
    expect(opts).toEqual({
      quick: false,
      durationSeconds: 3,
      warmupSeconds: 1,
      connections: 32,
      workers: 1,
      hotpTokens: 5000,
      bulkTokens: 100_000,
      auditRows: 1_000_000,
      ldapUsers: 1000,
      pgUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
      dbs: ['sqlite', 'postgres'],
      signing: [true, false],
    });
    expect(only).toBeUndefined();
    expect(resultsDir).toBe(join(ROOT, 'bench-results'));
  });

  it('--quick: short runs and small stores', () => {
    const { opts } = parse(['--quick']);
    expect(opts).toMatchObject({
      quick: true,
      durationSeconds: 2,
      warmupSeconds: 1,
      hotpTokens: 1000,
      bulkTokens: 10_000,
      auditRows: 100_000,
    });
  });

  it('explicit values win over --quick and the environment', () => {
    const { opts, only, resultsDir } = parse(
      [
        '--quick',
        '--only',
        '0,1',
        '--db',
        'sqlite',
        '--signing',
        'off',
        '--duration',
        '1.5',
        '--warmup',
        '0.5',
        '--connections',
        '4',
        '--workers',
        '0',
        '--hotp-tokens',
        '10',
        '--tokens',
        '20',
        '--audit-rows',
        '30',
        '--pg-url',
        'postgres://x@db/y',
        '--results-dir',
        '/tmp/r',
      ],
      { BENCH_DURATION: '9', BENCH_WARMUP: '9', BENCH_CONNECTIONS: '9', BENCH_RESULTS_DIR: '/tmp/env' },
    );
    expect(opts).toMatchObject({
      quick: true,
      durationSeconds: 1.5,
      warmupSeconds: 0.5,
      connections: 4,
      workers: 0,
      hotpTokens: 10,
      bulkTokens: 20,
      auditRows: 30,
      pgUrl: 'postgres://x@db/y',
      dbs: ['sqlite'],
      signing: [false],
    });
    expect(only).toBe('0,1');
    expect(resultsDir).toBe('/tmp/r');
  });

  it('takes BENCH_* from the environment when no option is given', () => {
    const { opts, resultsDir } = parse([], {
      BENCH_DURATION: '7',
      BENCH_WARMUP: '2',
      BENCH_CONNECTIONS: '8',
      BENCH_PG_URL: 'postgres://e/f',
      BENCH_RESULTS_DIR: '/tmp/env',
    });
    expect(opts).toMatchObject({
      durationSeconds: 7,
      warmupSeconds: 2,
      connections: 8,
      pgUrl: 'postgres://e/f',
    });
    expect(resultsDir).toBe('/tmp/env');
  });

  it('lists, with blanks around their entries', () => {
    const { opts } = parse(['--db', 'postgres, sqlite', '--signing', 'off, on', '--workers', '3']);
    expect(opts.dbs).toEqual(['postgres', 'sqlite']);
    expect(opts.signing).toEqual([false, true]);
    expect(opts.workers).toBe(3);
  });

  it('--help', () => {
    expect(parseCommandLine(['--help', '--duration', 'nonsense'], {}, ROOT)).toEqual({ help: true });
    for (const option of [
      '--quick',
      '--only',
      '--db',
      '--signing',
      '--duration',
      '--warmup',
      '--connections',
      '--hotp-tokens',
      '--tokens',
      '--audit-rows',
      '--workers',
      '--pg-url',
      '--results-dir',
      'BENCH_RESULTS_DIR',
    ]) {
      expect(HELP).toContain(option);
    }
  });

  it.each([
    [['--duration', '0'], /^--duration: not a positive number: 0$/],
    [['--duration', 'abc'], /^--duration: not a positive number: abc$/],
    [['--warmup=-1'], /^--warmup: not a positive number: -1$/],
    [['--connections', 'Infinity'], /^--connections: not a positive number: Infinity$/],
    [['--hotp-tokens', 'many'], /^--hotp-tokens: not a positive number: many$/],
    [['--tokens', '0'], /^--tokens: not a positive number: 0$/],
    [['--audit-rows', ''], /^--audit-rows: not a positive number: $/],
    [['--hotp-tokens', '0.5'], /^--hotp-tokens: not a whole number: 0.5$/],
    [['--tokens', '1000.5'], /^--tokens: not a whole number: 1000.5$/],
    [['--connections', '2.5'], /^--connections: not a whole number: 2.5$/],
    [['--workers=-1'], /^--workers: not a whole number ≥ 0: -1$/],
    [['--workers', '1.5'], /^--workers: not a whole number ≥ 0: 1.5$/],
    [['--workers', 'all'], /^--workers: not a whole number ≥ 0: all$/],
    [['--db', 'mysql'], /^--db: unknown mysql$/],
    [['--db', 'sqlite,'], /^--db: unknown $/],
    [['--signing', 'yes'], /^--signing: neither on nor off: yes$/],
    [['--signing', 'ON'], /^--signing: neither on nor off: ON$/],
  ])('rejects %j', (argv, message) => {
    expect(() => parse(argv)).toThrow(message);
  });

  it('rejects an invalid BENCH_DURATION from the environment', () => {
    expect(() => parse([], { BENCH_DURATION: 'soon' })).toThrow(/^--duration: not a positive number: soon$/);
  });

  it('rejects unknown options and a missing value', () => {
    expect(() => parse(['--fast'])).toThrow(/Unknown option '--fast'/);
    expect(() => parse(['--duration'])).toThrow(/--duration.*argument missing/);
  });
});

describe('--only', () => {
  const all = scenarioList(10);
  const ids = (only: string | undefined) => selectScenarios(all, only).map((s) => s.id);

  it('refuses a list that names no scenario', () => {
    expect(() => ids('')).toThrow(/^--only: names no scenario$/);
    expect(() => ids(' , ')).toThrow(/^--only: names no scenario$/);
  });

  it('the scenarios and their order', () => {
    expect(all.map((s) => s.id)).toEqual([
      '0',
      '1',
      '1p',
      '2',
      '2p',
      '3',
      '4',
      '7',
      '7p',
      '8',
      '9',
      'R',
      '5a',
      '5b',
      '5c',
      '6',
      '6c',
      '2L',
    ]);
    expect(new Set(all.map((s) => s.id)).size).toBe(all.length);
  });

  it('selects everything without --only', () => {
    expect(ids(undefined)).toEqual(all.map((s) => s.id));
  });

  it('a number selects its variants, never 2L; an id itself; in the order of the list', () => {
    expect(ids('0,1')).toEqual(['0', '1', '1p']);
    expect(ids('1p')).toEqual(['1p']);
    expect(ids('2')).toEqual(['2', '2p']);
    expect(ids('2L')).toEqual(['2L']);
    expect(ids('2,R')).toEqual(['2', '2p', 'R']);
    expect(ids('5')).toEqual(['5a', '5b', '5c']);
    expect(ids('6c, 0')).toEqual(['0', '6c']);
    expect(ids('7p,7')).toEqual(['7', '7p']);
    expect(ids('8')).toEqual(['8']);
    expect(ids('9')).toEqual(['9']);
  });

  it('rejects unknown scenarios by name', () => {
    expect(() => ids('1,99')).toThrow(/^--only: unknown scenario 99$/);
    expect(() => ids('x,2q')).toThrow(/^--only: unknown scenario x, 2q$/);
  });

  it("8 runs scenario 2's logins beside e-mail challenges to the silent SMTP server", () => {
    const s = scenarioList(1).find((x) => x.id === '8')!;
    expect(s).toMatchObject({
      store: 'small',
      unit: 'logins/s',
      hashes: 0,
      groups: ['ho', 'em'],
      hangingMail: { group: 'em', connections: 16, smtpTimeoutSeconds: 2 },
    });
    const groups = tokenGroups(10, 10);
    expect(groups.em).toMatchObject({ token: 'email', realm: 'bench' });
    expect(s.workload({ groups, seq: { ho: 7 }, adminPassword: 'a', jwt: 'j' })).toEqual({
      kind: 'hotp',
      group: groups.ho,
      pin: '',
      seq: 7,
    });
  });

  it("9 runs scenario 2's logins with the webhook definition", () => {
    const s = scenarioList(1).find((x) => x.id === '9')!;
    expect(s).toMatchObject({ store: 'small', unit: 'logins/s', hashes: 0, groups: ['ho'], webhook: true });
    // No other scenario has the definition.
    expect(
      scenarioList(1)
        .filter((x) => x.webhook)
        .map((x) => x.id),
    ).toEqual(['9']);
  });

  it('5b checks the count of the bulk tokens it was given', () => {
    const s = scenarioList(1234).find((x) => x.id === '5b')!;
    const w = s.workload({ groups: {}, seq: {}, adminPassword: 'a', jwt: 'j' });
    expect(w).toMatchObject({ kind: 'get', list: 'tokens', minCount: 1234, jwt: 'j' });
    // 5c: the same with one connection.
    expect(scenarioList(1).find((x) => x.id === '5c')).toMatchObject({ connections: 1, store: 'large' });
  });
});
