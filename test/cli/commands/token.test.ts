import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { findToken, pinMatches } from '../../../src/core/token/store/index.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { filesRealm, useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { decodeQrFile, decodeTerminalQr } from '../../helpers/qr-decode.ts';

/** RFC 4226 appendix D: the seed "12345678901234567890" and its first HOTP values. */
const RFC_KEY = '3132333435363738393031323334353637383930';
const HOTP = ['755224', '287082'];

describe.each(cliDialects())('authsrv token and validate check on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));
  beforeEach(async () =>
    filesRealm({ c, ctx }, [
      { login: 'alice', uid: 1001 },
      { login: 'bob', uid: 1002 },
    ]),
  );
  const token = (serial: string) => findToken(ctx, serial);

  it('enrolls, lists, assigns, disables, validates, sets the PIN, unassigns and deletes, auditing changes', async () => {
    // init with a PIN from stdin: the serial and the otpauth URI, never a QR image.
    const init = await c.run(
      [
        'token',
        'init',
        '--type',
        'hotp',
        '--serial',
        'H1',
        '--otpkey',
        RFC_KEY,
        '--user',
        'alice@main',
        '--pin-stdin',
      ],
      '1234\n',
    );
    expect(init).toMatchObject({ code: 0, stderr: '' });
    expect(init.stdout).toMatch(
      /^serial: H1\notpauth URI: otpauth:\/\/hotp\/H1\?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=1&/,
    );
    expect(init.stdout).not.toMatch(/data:image/);
    const h1 = (await token('H1'))!;
    expect(h1.row).toMatchObject({ tokentype: 'hotp', active: 1 });
    expect(h1.owner).toMatchObject({ resolver: 'files', userId: '1001', realm: 'main' });
    expect(await pinMatches(h1, '1234')).toBe(true);

    const pw: Json = JSON.parse(
      (await c.run(['token', 'init', '--type', 'pw', '--serial', 'P1', '--realm', 'main', '--json'])).stdout,
    );
    expect(pw).toMatchObject({ serial: 'P1', password: expect.any(String) });
    expect((await token('P1'))?.realms).toEqual(['main']);

    const table = await c.run(['token', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Serial.*Type.*Active.*Owner.*Realms.*Failcount.*Description/);
    expect(table.stdout).toMatch(/H1 +│ hotp +│ yes +│ alice@main +│ main +│ 0\/10/);
    expect(table.stdout).toMatch(/P1 +│ pw +│ yes +│ +│ main +│/);

    expect(await c.run(['token', 'assign', 'P1', '--user', 'bob', '--realm', 'main'])).toEqual({
      code: 0,
      stdout: "Token 'P1' assigned to bob@main.\n",
      stderr: '',
    });
    expect((await token('P1'))?.owner).toMatchObject({ userId: '1002', realm: 'main' });

    // PIN + OTP from stdin, never from argv.
    expect(
      await c.run(
        ['validate', 'check', '--user', 'alice', '--realm', 'main', '--pass-stdin'],
        `1234${HOTP[0]}\n`,
      ),
    ).toEqual({ code: 0, stdout: 'ACCEPT: matching 1 tokens\n', stderr: '' });

    expect((await c.run(['token', 'disable', 'H1'])).stdout).toBe("Token 'H1' disabled.\n");
    expect((await token('H1'))?.row.active).toBe(0);
    const rejected = await c.run(
      ['validate', 'check', '--serial', 'H1', '--pass-stdin', '--json'],
      `1234${HOTP[1]}\n`,
    );
    expect(rejected.code).toBe(1);
    expect(JSON.parse(rejected.stdout)).toMatchObject({ authentication: 'REJECT', value: false });

    expect((await c.run(['token', 'setpin', 'H1', '--pin-stdin'], 'new-pin\n')).code).toBe(0);
    expect(await pinMatches((await token('H1'))!, 'new-pin')).toBe(true);

    const shown: Json = JSON.parse((await c.run(['token', 'show', 'H1', '--json'])).stdout);
    expect(shown).toMatchObject({
      serial: 'H1',
      active: false,
      username: 'alice',
      user_realm: 'main',
      count: 1,
    });

    expect((await c.run(['token', 'unassign', 'P1'])).stdout).toBe("Token 'P1' unassigned.\n");
    expect((await token('P1'))?.owner).toBeUndefined();
    expect((await c.run(['token', 'delete', 'P1'])).stdout).toBe("Token 'P1' deleted.\n");
    expect(await token('P1')).toBeUndefined();
    expect(expectOneLineError(await c.run(['token', 'delete', 'GHOST']))).toBe(
      'authsrv: No token found for serials: GHOST',
    );

    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      [
        'CLI token init',
        1,
        `${CLI_USER}@cli`,
        '--type hotp --serial H1 --user alice@main --otpkey *** --pin-stdin',
      ],
      ['CLI token init', 1, `${CLI_USER}@cli`, '--type pw --serial P1 --realm main'],
      ['CLI token assign', 1, `${CLI_USER}@cli`, 'P1 bob'],
      ['CLI validate check', 1, `${CLI_USER}@cli`, 'matching 1 tokens'],
      ['CLI token disable', 1, `${CLI_USER}@cli`, 'H1'],
      ['CLI validate check', 0, `${CLI_USER}@cli`, expect.any(String)],
      ['CLI token setpin', 1, `${CLI_USER}@cli`, 'H1'],
      ['CLI token unassign', 1, `${CLI_USER}@cli`, 'P1'],
      ['CLI token delete', 1, `${CLI_USER}@cli`, 'P1'],
      ['CLI token delete', 0, `${CLI_USER}@cli`, 'GHOST No token found for serials: GHOST'],
    ]);
    expect(rows[3]).toMatchObject({ authentication: 'ACCEPT', serial: 'H1', user: 'alice', realm: 'main' });
    expect(rows[5]).toMatchObject({ authentication: 'REJECT', serial: 'H1' });
    // Nothing secret in the audit: neither the PIN nor the seed.
    expect(JSON.stringify(rows.map((r) => [r.info, r.action_detail]))).not.toMatch(/1234|new-pin|313233/);
  });

  it('draws the QR code of the otpauth URI in the terminal and writes it as PNG with --qr-png', async () => {
    const png = join(c.dataDir, 'alice.png');
    const init = await c.run([
      'token',
      'init',
      '--type',
      'totp',
      '--serial',
      'Q1',
      '--user',
      'alice@main',
      '--qr-png',
      png,
    ]);
    expect(init).toMatchObject({ code: 0, stderr: '' });
    const [serial, uriLine, ...drawing] = init.stdout.trimEnd().split('\n');
    expect(serial).toBe('serial: Q1');
    const uri = uriLine!.replace(/^otpauth URI: /, '');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Q1\?secret=[A-Z2-7]+&/);
    // Not a terminal: plain half blocks, no colour codes.
    expect(decodeTerminalQr(drawing.join('\n'))).toBe(uri);
    expect(decodeQrFile(png)).toBe(uri);

    const quiet = await c.run(['token', 'init', '--type', 'hotp', '--serial', 'Q2', '--no-qr']);
    expect(quiet.stdout).toMatch(/^serial: Q2\notpauth URI: otpauth:\/\/hotp\/Q2\?[^\n]*\n$/);
  });

  it('refuses --qr-png naming an existing file before enrolling anything', async () => {
    const png = join(c.dataDir, 'taken.png');
    writeFileSync(png, 'not mine');
    const r = await c.run(['token', 'init', '--type', 'totp', '--serial', 'Q3', '--qr-png', png]);
    expect(expectOneLineError(r)).toContain(`--qr-png: ${png} exists`);
    expect(await token('Q3')).toBeUndefined();
    const missing = await c.run([
      'token',
      'init',
      '--type',
      'totp',
      '--serial',
      'Q3',
      '--qr-png',
      join(c.dataDir, 'no/dir.png'),
    ]);
    expect(expectOneLineError(missing)).toContain('does not exist');
    expect(await token('Q3')).toBeUndefined();
  });

  it('enrolls an SMS token with --phone or --dynamic-phone, and --sms-identifier', async () => {
    const init = (...words: string[]) => c.run(['token', 'init', '--type', 'sms', ...words, '--json']);
    expect((await init('--serial', 'S1', '--phone', '+49 170 1234', '--sms-identifier', 'gw2')).code).toBe(0);
    expect((await init('--serial', 'S2', '--dynamic-phone')).code).toBe(0);
    expect(expectOneLineError(await init('--serial', 'S3'))).toBe("authsrv: Missing parameter: 'phone'");
    expect(expectOneLineError(await init('--serial', 'S3', '--phone', 'call me'))).toBe(
      "authsrv: 'call me' is not a valid phone number",
    );
    const info = await ctx.store.db
      .selectFrom('tokeninfo')
      .innerJoin('token', 'token.id', 'tokeninfo.token_id')
      .select(['token.serial', 'tokeninfo.key', 'tokeninfo.value'])
      .where('tokeninfo.key', 'in', ['phone', 'dynamic_phone', 'sms.identifier'])
      .orderBy('token.serial')
      .orderBy('tokeninfo.key')
      .execute();
    expect(info).toEqual([
      { serial: 'S1', key: 'phone', value: '+49 170 1234' },
      { serial: 'S1', key: 'sms.identifier', value: 'gw2' },
      { serial: 'S2', key: 'dynamic_phone', value: 'True' },
    ]);
  });

  it('enrolls an e-mail token with --email or --dynamic-email', async () => {
    const init = (...words: string[]) => c.run(['token', 'init', '--type', 'email', ...words, '--json']);
    expect((await init('--serial', 'E1', '--email', 'alice@example.com')).code).toBe(0);
    expect((await init('--serial', 'E2', '--dynamic-email')).code).toBe(0);
    expect(expectOneLineError(await init('--serial', 'E3'))).toBe("authsrv: Missing parameter: 'email'");
    const info = await ctx.store.db
      .selectFrom('tokeninfo')
      .innerJoin('token', 'token.id', 'tokeninfo.token_id')
      .select(['token.serial', 'tokeninfo.key', 'tokeninfo.value'])
      .where('tokeninfo.key', 'in', ['email', 'dynamic_email'])
      .orderBy('token.serial')
      .execute();
    expect(info).toEqual([
      { serial: 'E1', key: 'email', value: 'alice@example.com' },
      { serial: 'E2', key: 'dynamic_email', value: 'True' },
    ]);
  });

  it("audits an enrollment's token type: the token's own, the type asked for when it fails", async () => {
    const init = (...words: string[]) => c.run(['token', 'init', ...words]);
    expect((await init('--type', 'TOTP', '--serial', 'T1', '--genkey')).code).toBe(0);
    expect((await init('--type', 'NoSuchType')).code).toBe(1);
    expect((await init('--type', 'HOTP', '--realm', 'nosuchrealm')).code).toBe(1);
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.serial, r.token_type])).toEqual([
      ['CLI token init', 1, 'T1', 'totp'],
      ['CLI token init', 0, '', 'nosuchtype'],
      ['CLI token init', 0, '', 'hotp'],
    ]);
  });

  it('imports an OATH CSV file and prints a summary', async () => {
    const file = `${c.dataDir}/tokens.csv`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      `# two tokens and a broken line\nIMP1, ${RFC_KEY}, hotp, 6\nIMP2, ${RFC_KEY}, totp, 8, 60\nIMP3, nothex, hotp\n`,
    );
    const r = await c.run(['token', 'import', file, '--type', 'oathcsv']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/2\D+imported/i);
    expect((await token('IMP1'))?.row.tokentype).toBe('hotp');
    expect((await token('IMP2'))?.info.timeStep).toBe('60');
    expect(await token('IMP3')).toBeUndefined();
  });
});
