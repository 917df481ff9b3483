import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/index.ts';
import { bearerMatches, readMetricsToken } from '../../../src/core/metrics/token.ts';

const TOKEN = 'abcdefghijklmnop-0123';

describe('bearerMatches', () => {
  it('accepts exactly `Bearer <token>` (the scheme in any case)', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`Bearer  ${TOKEN} `, TOKEN)).toBe(true);
  });

  it.each([
    undefined,
    '',
    TOKEN,
    `Basic ${TOKEN}`,
    `Bearer ${TOKEN}x`,
    `Bearer ${TOKEN.slice(0, -1)}`,
    `Bearer ${TOKEN.toUpperCase()}`,
    `Bearer ${TOKEN} ${TOKEN}`,
    'Bearer ',
  ])('refuses %j', (header) => {
    expect(bearerMatches(header, TOKEN)).toBe(false);
  });
});

describe('readMetricsToken', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'authsrv-metrics-token-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const file = (text: string) => {
    const path = join(dir, 'token');
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  };

  it('reads the first line, without its line end or surrounding blanks', () => {
    expect(readMetricsToken(file(`${TOKEN}\r\nsecond line\n`))).toBe(TOKEN);
    expect(readMetricsToken(file(` ${TOKEN} `))).toBe(TOKEN);
  });

  it('refuses a short token, naming the setting and the file but never the token', () => {
    const path = file('short-token\n');
    const e = (() => {
      try {
        readMetricsToken(path);
      } catch (err) {
        return err as Error;
      }
      throw new Error('expected an error');
    })();
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toContain('metrics.token_file');
    expect(e.message).toContain(path);
    expect(e.message).not.toContain('short-token');
  });

  it('refuses a missing file and a directory with a ConfigError naming the setting', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    for (const path of [join(dir, 'missing'), sub]) {
      expect(() => readMetricsToken(path)).toThrow(ConfigError);
      expect(() => readMetricsToken(path)).toThrow(/metrics\.token_file/);
    }
  });
});
