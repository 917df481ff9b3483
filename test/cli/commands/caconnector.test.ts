// `authsrv caconnector list|show|set|delete|templates|crl`: the services and messages of
// /caconnector/, the key password from standard input (never the command line), --json, and an
// audit row for every change.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { caconnectorSetArgs, crlText, makeTestCa } from '../../helpers/test-ca.ts';

describe.each(cliDialects())('authsrv caconnector on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));

  it('sets, lists, shows, lists templates, writes the CRL and deletes; audits each change', async () => {
    const ca = makeTestCa(c.dataDir);
    const set = await c.run(
      [
        ...caconnectorSetArgs(ca, ca.encryptedKey),
        '--crl',
        ca.crl,
        '--option',
        'CRL_Validity_Period=7',
        '--password-stdin',
      ],
      `${ca.keyPassword}\n`,
    );
    expect(set).toEqual({ code: 0, stdout: "CA connector 'ca1' saved.\n", stderr: '' });
    const shown = JSON.parse((await c.run(['caconnector', 'show', 'ca1', '--json'])).stdout);
    expect(shown.data).toEqual({
      CRL: ca.crl,
      CRL_Validity_Period: '7',
      cacert: ca.cacert,
      cakey: ca.encryptedKey,
      password: '__CENSORED__',
      templates: ca.templates,
    });
    // Set again without a password: the stored one is kept for the same key file.
    const again = await c.run([...caconnectorSetArgs(ca, ca.encryptedKey), '--crl', ca.crl, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).data.password).toBe('__CENSORED__');
    expect(JSON.parse((await c.run(['caconnector', 'list', '--json'])).stdout)).toEqual([
      { connectorname: 'ca1', type: 'local', templates: shown.templates },
    ]);
    expect((await c.run(['caconnector', 'list'])).stdout).toMatch(/ca1 +│ local +│ vpn, webserver/);
    expect((await c.run(['caconnector', 'templates', 'ca1'])).stdout).toMatch(
      /vpn +│ 30 +│ digitalSignature, keyEncipherment +│ clientAuth +│ CN/,
    );
    expect(
      Object.keys(JSON.parse((await c.run(['caconnector', 'templates', 'ca1', '--json'])).stdout)),
    ).toEqual(['vpn', 'webserver']);
    const crl = JSON.parse((await c.run(['caconnector', 'crl', 'ca1', '--json'])).stdout);
    expect(crl.name).toBe('ca1');
    expect(crlText(ca)).toContain('No Revoked Certificates');
    expect(JSON.parse((await c.run(['caconnector', 'delete', 'ca1', '--json'])).stdout)).toEqual({
      deleted: 'ca1',
    });
    expect(JSON.parse((await c.run(['caconnector', 'list', '--json'])).stdout)).toEqual([]);
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI caconnector set', 1, `${CLI_USER}@cli`, 'ca1'],
      ['CLI caconnector set', 1, `${CLI_USER}@cli`, 'ca1'],
      ['CLI caconnector crl', 1, `${CLI_USER}@cli`, 'ca1'],
      ['CLI caconnector delete', 1, `${CLI_USER}@cli`, 'ca1'],
    ]);
    expect(JSON.stringify(rows)).not.toContain(ca.keyPassword);
  });

  it('refuses broken configurations and unknown connectors with the messages of the API', async () => {
    const ca = makeTestCa(c.dataDir);
    expect(
      expectOneLineError(
        await c.run([
          'caconnector',
          'set',
          'x',
          '--type',
          'local',
          '--cacert',
          ca.cacert,
          '--cakey',
          ca.otherKey,
        ]),
      ),
    ).toBe('authsrv: cakey: the key does not belong to the certificate cacert');
    expect(
      expectOneLineError(
        await c.run([
          'caconnector',
          'set',
          'x',
          '--type',
          'msca',
          '--cacert',
          ca.cacert,
          '--cakey',
          ca.cakey,
        ]),
      ),
    ).toBe("authsrv: Unknown CA type 'msca': use local");
    expect(
      expectOneLineError(
        await c.run(['caconnector', 'set', 'x', '--type', 'local', '--option', `password=secret`]),
      ),
    ).toBe(
      'authsrv: The key password is not given on the command line: use --key-password or --password-stdin',
    );
    expect(
      expectOneLineError(
        await c.run([
          'caconnector',
          'set',
          'x',
          '--type',
          'local',
          '--cacert',
          ca.cacert,
          '--cakey',
          ca.cakey,
          '--key-password',
        ]),
      ),
    ).toBe('authsrv: No terminal to ask for the key password: pipe it in with --password-stdin');
    expect(expectOneLineError(await c.run(['caconnector', 'delete', 'nope']))).toBe(
      'authsrv: The CA connector nope does not exist.',
    );
    expect(expectOneLineError(await c.run(['caconnector', 'show', 'nope']))).toBe(
      'authsrv: The CA connector nope does not exist.',
    );
    expect(JSON.parse((await c.run(['caconnector', 'list', '--json'])).stdout)).toEqual([]);
  });
});
