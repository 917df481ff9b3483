// `authsrv token getserial OTP`: the service of GET /token/getserial (HOTP and TOTP), the value
// used up, the serial on stdout and exit 1 when no token matches. The CLI runs on the real clock:
// a TOTP value of now is found within the default window of ±10 steps.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { findToken } from '../../../src/core/token/store/index.ts';
import { type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { hotp } from '../../helpers/otp.ts';

const KEY1 = '3132333435363738393031323334353637383930';
const KEY2 = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const NONE = (n: number) => `No token matches this OTP value (${n} tokens checked).\n`;

describe.each(cliDialects())('authsrv token getserial on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));
  beforeEach(async () => {
    await initToken(ctx, { type: 'hotp', serial: 'H1', otpkey: KEY1 });
    await initToken(ctx, { type: 'totp', serial: 'T1', otpkey: KEY2 });
  });
  const count = async (serial: string) => Number((await findToken(ctx, serial))!.row.count);

  it('finds HOTP and TOTP tokens and uses the value up; filters, window, count; audits', async () => {
    expect(await c.run(['token', 'getserial', hotp(KEY1, 0)])).toEqual({
      code: 0,
      stdout: 'H1\n',
      stderr: '',
    });
    expect(await count('H1')).toBe(1);
    expect(await c.run(['token', 'getserial', hotp(KEY1, 0)])).toEqual({
      code: 1,
      stdout: NONE(2),
      stderr: '',
    });
    // Window: the next 10 counters by default.
    expect((await c.run(['token', 'getserial', hotp(KEY1, 12)])).code).toBe(1);
    expect((await c.run(['token', 'getserial', hotp(KEY1, 12), '--window', '12'])).stdout).toBe('H1\n');
    expect(await count('H1')).toBe(13);

    const step = Math.floor(Date.now() / 30_000);
    const value = hotp(KEY2, step);
    expect(await c.run(['token', 'getserial', value, '--type', 'hotp'])).toEqual({
      code: 1,
      stdout: NONE(1),
      stderr: '',
    });
    expect(await c.run(['token', 'getserial', value, '--count'])).toEqual({
      code: 0,
      stdout: '2\n',
      stderr: '',
    });
    expect(await count('T1')).toBe(0);
    expect(JSON.parse((await c.run(['token', 'getserial', value, '--json'])).stdout)).toEqual({
      serial: 'T1',
      count: 2,
    });
    // The TOTP token's last accepted step is the value's: it is not found (or accepted) again.
    expect(await count('T1')).toBe(step);
    expect((await c.run(['token', 'getserial', value])).code).toBe(1);

    expect(expectOneLineError(await c.run(['token', 'getserial', value, '--window', 'x']))).toBe(
      "authsrv: 'window' must be a positive integer, not 'x'",
    );

    const rows = await ctx.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'serial', 'info'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { action: 'CLI token getserial', success: 1, serial: 'H1', info: '' },
      { action: 'CLI token getserial', success: 1, serial: '', info: '' },
      { action: 'CLI token getserial', success: 1, serial: '', info: '' },
      { action: 'CLI token getserial', success: 1, serial: 'H1', info: '--window 12' },
      { action: 'CLI token getserial', success: 1, serial: '', info: '--type hotp' },
      { action: 'CLI token getserial', success: 1, serial: '', info: '--count' },
      { action: 'CLI token getserial', success: 1, serial: 'T1', info: '' },
      { action: 'CLI token getserial', success: 1, serial: '', info: '' },
    ]);
    // Neither OTP value is in the audit.
    expect(JSON.stringify(rows)).not.toContain(value);
  });

  it('several matching tokens: the API error, nothing used up', async () => {
    await initToken(ctx, { type: 'hotp', serial: 'H2', otpkey: KEY1 });
    expect(expectOneLineError(await c.run(['token', 'getserial', hotp(KEY1, 0)]))).toBe(
      'authsrv: multiple tokens are matching this OTP value!',
    );
    expect([await count('H1'), await count('H2')]).toEqual([0, 0]);
    expect((await c.run(['token', 'getserial', hotp(KEY1, 0), '--serial', '2'])).stdout).toBe('H2\n');
  });
});
