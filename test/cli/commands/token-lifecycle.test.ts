// `authsrv token enable|revoke|reset|resync` and the output of `authsrv token import` without a
// terminal: what they print, their exit codes, what they change in the database, their audit rows
// and the one-line error for an unknown serial.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Progress } from '../../../src/cli/progress.ts';
import type { Context } from '../../../src/core/context.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { findToken } from '../../../src/core/token/store/index.ts';
import { CLI_USER, type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { hotp } from '../../helpers/otp.ts';

/** RFC 4226 test seed ("12345678901234567890"). */
const KEY = '3132333435363738393031323334353637383930';
const LOCKED = 'authsrv: This action is not possible, since the token is locked';

// Spawning the CLI is slow: one environment per dialect for the whole block.
describe.each(cliDialects())('authsrv token enable, revoke, reset, resync and import on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));

  const token = async (serial: string) => (await findToken(ctx, serial))!;
  const enroll = (params: Record<string, string>) => initToken(ctx, { otpkey: KEY, ...params });
  const setRow = (serial: string, values: { active?: number; failcount?: number }) =>
    ctx.store.db.updateTable('token').set(values).where('serial', '=', serial).execute();
  /** The audit rows of a CLI action on these serials: success, serial, administrator, info. */
  const auditOf = async (action: string, serials: string[]) =>
    (
      await ctx.store.db
        .selectFrom('audit')
        .selectAll()
        .where('action', '=', `CLI ${action}`)
        .where('serial', 'in', serials)
        .orderBy('id')
        .execute()
    ).map((r) => [r.success, r.serial, r.administrator, r.info]);

  it('enables a disabled token and says so when it already was enabled', async () => {
    await enroll({ type: 'hotp', serial: 'LCEN1' });
    await setRow('LCEN1', { active: 0 });
    expect(await c.run(['token', 'enable', 'LCEN1'])).toEqual({
      code: 0,
      stdout: "Token 'LCEN1' enabled.\n",
      stderr: '',
    });
    expect((await token('LCEN1')).row.active).toBe(1);
    expect(await c.run(['token', 'enable', 'LCEN1'])).toEqual({
      code: 0,
      stdout: "Token 'LCEN1' was already enabled.\n",
      stderr: '',
    });
    expect(expectOneLineError(await c.run(['token', 'enable', 'GHOST']))).toBe(
      'authsrv: No token found for serials: GHOST',
    );
    expect(await auditOf('token enable', ['LCEN1', 'GHOST'])).toEqual([
      [1, 'LCEN1', `${CLI_USER}@cli`, 'LCEN1'],
      [1, 'LCEN1', `${CLI_USER}@cli`, 'LCEN1'],
      [0, 'GHOST', `${CLI_USER}@cli`, 'GHOST No token found for serials: GHOST'],
    ]);
  });

  it('revokes a token for good: locked, inactive, refusing enable, reset and a second revoke', async () => {
    await enroll({ type: 'hotp', serial: 'LCREV1' });
    expect(await c.run(['token', 'revoke', 'LCREV1'])).toEqual({
      code: 0,
      stdout: "Token 'LCREV1' revoked.\n",
      stderr: '',
    });
    expect((await token('LCREV1')).row).toMatchObject({ revoked: 1, locked: 1, active: 0 });
    for (const verb of ['revoke', 'enable', 'reset']) {
      const r = await c.run(['token', verb, 'LCREV1']);
      expect(r.code, verb).toBe(1);
      expect(r.stdout, verb).toBe('');
      expect(expectOneLineError(r), verb).toBe(LOCKED);
    }
    expect((await token('LCREV1')).row).toMatchObject({ revoked: 1, locked: 1, active: 0 });
    expect(expectOneLineError(await c.run(['token', 'revoke', 'GHOST']))).toBe(
      'authsrv: No token found for serials: GHOST',
    );
    expect(await auditOf('token revoke', ['LCREV1', 'GHOST'])).toEqual([
      [1, 'LCREV1', `${CLI_USER}@cli`, 'LCREV1'],
      [0, 'LCREV1', `${CLI_USER}@cli`, 'LCREV1 This action is not possible, since the token is locked'],
      [0, 'GHOST', `${CLI_USER}@cli`, 'GHOST No token found for serials: GHOST'],
    ]);
  });

  it('resets the fail counter', async () => {
    await enroll({ type: 'hotp', serial: 'LCRES1' });
    await setRow('LCRES1', { failcount: 10 });
    const t = await token('LCRES1');
    await ctx.store.db
      .insertInto('tokeninfo')
      .values({ token_id: t.row.id, key: 'failcounter_exceeded', value: '2026-03-01T12:00+0000', type: '' })
      .execute();
    expect(await c.run(['token', 'reset', 'LCRES1'])).toEqual({
      code: 0,
      stdout: "Token 'LCRES1' fail counter reset.\n",
      stderr: '',
    });
    const after = await token('LCRES1');
    expect(after.row.failcount).toBe(0);
    expect(after.info.failcounter_exceeded).toBeUndefined();
    expect(expectOneLineError(await c.run(['token', 'reset', 'GHOST']))).toBe(
      'authsrv: No token found for serials: GHOST',
    );
    expect(await auditOf('token reset', ['LCRES1', 'GHOST'])).toEqual([
      [1, 'LCRES1', `${CLI_USER}@cli`, 'LCRES1'],
      [0, 'GHOST', `${CLI_USER}@cli`, 'GHOST No token found for serials: GHOST'],
    ]);
  });

  it('resynchronizes a HOTP token with two consecutive values, refusing others', async () => {
    await enroll({ type: 'hotp', serial: 'LCSYN1' });
    // Counters 50 and 51: far beyond the look-ahead window of 10, inside the sync window of 1000.
    expect(await c.run(['token', 'resync', 'LCSYN1', hotp(KEY, 50), hotp(KEY, 51)])).toEqual({
      code: 0,
      stdout: "Token 'LCSYN1' resynchronized.\n",
      stderr: '',
    });
    expect(Number((await token('LCSYN1')).row.count)).toBe(52);
    // Not consecutive: refused, the counter stays.
    const bad = await c.run(['token', 'resync', 'LCSYN1', hotp(KEY, 60), hotp(KEY, 62)]);
    expect(bad.stdout).toBe('');
    expect(expectOneLineError(bad)).toBe(
      "authsrv: Token 'LCSYN1' could not be resynchronized with these values",
    );
    expect(Number((await token('LCSYN1')).row.count)).toBe(52);
    // Values already used (behind the counter) are refused too.
    expect((await c.run(['token', 'resync', 'LCSYN1', hotp(KEY, 50), hotp(KEY, 51)])).code).toBe(1);
    expect(expectOneLineError(await c.run(['token', 'resync', 'GHOST', '123456', '234567']))).toBe(
      'authsrv: No token found for serials: GHOST',
    );
    // A type without counters cannot be resynchronized.
    await initToken(ctx, { type: 'spass', serial: 'LCSYN2' });
    expect(expectOneLineError(await c.run(['token', 'resync', 'LCSYN2', '123456', '234567']))).toBe(
      'authsrv: Token type spass can not be resynchronized',
    );
    expect(await auditOf('token resync', ['LCSYN1', 'LCSYN2', 'GHOST'])).toEqual([
      [1, 'LCSYN1', `${CLI_USER}@cli`, 'LCSYN1'],
      [0, 'LCSYN1', `${CLI_USER}@cli`, "LCSYN1 Token 'LCSYN1' could not be resynchronized with these values"],
      [0, 'LCSYN1', `${CLI_USER}@cli`, "LCSYN1 Token 'LCSYN1' could not be resynchronized with these values"],
      [0, 'GHOST', `${CLI_USER}@cli`, 'GHOST No token found for serials: GHOST'],
      [0, 'LCSYN2', `${CLI_USER}@cli`, 'LCSYN2 Token type spass can not be resynchronized'],
    ]);
  });

  it('resynchronizes a TOTP token and learns its drift', async () => {
    await enroll({ type: 'totp', serial: 'LCSYN3' });
    // The CLI runs on the real clock: a token 20 steps (10 minutes) ahead.
    const before = Date.now() / 1000;
    const step = Math.floor(before / 30);
    const r = await c.run(['token', 'resync', 'LCSYN3', hotp(KEY, step + 20), hotp(KEY, step + 21)]);
    const after = Date.now() / 1000;
    expect(r).toEqual({ code: 0, stdout: "Token 'LCSYN3' resynchronized.\n", stderr: '' });
    const t = await token('LCSYN3');
    expect(Number(t.row.count)).toBe(step + 22);
    // timeShift = step of otp2 * 30 - now, for a "now" between before and after.
    const shift = Number(t.info.timeShift);
    expect(Number.isInteger(shift)).toBe(true);
    expect(shift).toBeGreaterThanOrEqual(Math.round((step + 21) * 30 - after) - 1);
    expect(shift).toBeLessThanOrEqual(Math.round((step + 21) * 30 - before) + 1);
  });

  it('prints no progress bar without a terminal, only the summary', async () => {
    const file = join(c.dataDir, 'lifecycle-tokens.csv');
    const lines = ['# thirty tokens'];
    for (let i = 0; i < 30; i++) lines.push(`LCIMP${i}, ${KEY}, hotp, 6`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    // stderr is not a terminal here: no progress line, no carriage returns, nothing at all.
    expect(await c.run(['token', 'import', file, '--type', 'oathcsv'])).toEqual({
      code: 0,
      stdout: 'lifecycle-tokens.csv: 30 imported, 0 not imported\n',
      stderr: '',
    });
    expect((await token('LCIMP29')).row.tokentype).toBe('hotp');

    // A broken line: one reason line in the summary; on stderr only the warning of the log.
    const broken = join(c.dataDir, 'lifecycle-broken.csv');
    writeFileSync(broken, `LCIMPA, ${KEY}, hotp, 6\nLCIMPX, nothex, hotp\n`);
    const r = await c.run(['token', 'import', broken, '--type', 'oathcsv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'lifecycle-broken.csv: 1 imported, 1 not imported\n' +
        '  not imported: LCIMPX (line 2): the key is not hexadecimal\n',
    );
    expect(r.stderr).not.toMatch(/importing|\r/);
    const logged = r.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(logged).toEqual([
      expect.objectContaining({ level: 40, msg: 'token import: some tokens were not imported', count: 1 }),
    ]);
  });

  it('draws the progress line on a terminal: throttled updates, then a done line', () => {
    const writes: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const wasTty = process.stderr.isTTY;
    process.stderr.isTTY = true;
    try {
      const p = new Progress('importing', 40);
      p.update(10);
      // Within 100 ms of the last drawing: skipped.
      p.update(20);
      p.done(40);
    } finally {
      process.stderr.isTTY = wasTty;
      spy.mockRestore();
    }
    expect(writes).toEqual([
      `\rimporting [${'#'.repeat(8)}${'.'.repeat(22)}] 25% 10/40`,
      `\rimporting done: 40${' '.repeat(40)}\n`,
    ]);
  });
});
