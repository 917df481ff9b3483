// `authsrv token init --type certificate --ca NAME (--csr FILE | --genkey)`: a certificate for a
// CSR file, or a generated key written as a PKCS#12 file; both checked with Debian's openssl.
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { caconnectorSetArgs, makeCsr, makeTestCa, pkcs12Info, verify } from '../../helpers/test-ca.ts';

describe.each(cliDialects())('authsrv token init --type certificate on %s', (dialect) => {
  let c: CliEnv;
  useCliEnv(dialect, 'each', (f) => ({ c } = f));

  it('issues a certificate for a CSR file and for a generated key (PKCS#12 file)', async () => {
    const ca = makeTestCa(c.dataDir);
    const set = await c.run([...caconnectorSetArgs(ca, ca.cakey)]);
    expect(set.code).toBe(0);
    const csrFile = join(c.dataDir, 'req.csr');
    writeFileSync(csrFile, makeCsr(ca.dir, '/CN=laptop.example.org'));
    const init = await c.run([
      'token',
      'init',
      '--type',
      'certificate',
      '--ca',
      'ca1',
      '--template',
      'vpn',
      '--csr',
      csrFile,
      '--serial',
      'CRT1',
    ]);
    expect(init.code).toBe(0);
    expect(init.stdout).toMatch(/^serial: CRT1\n-----BEGIN CERTIFICATE-----\n/);
    expect(verify(ca, init.stdout.slice(init.stdout.indexOf('-----BEGIN')))).toMatch(/: OK$/);

    const p12 = join(c.dataDir, 'bundle.p12');
    const gen = await c.run([
      'token',
      'init',
      '--type',
      'certificate',
      '--ca',
      'ca1',
      '--genkey',
      '--pkcs12-out',
      p12,
      '--json',
    ]);
    expect(gen.code).toBe(0);
    const detail = JSON.parse(gen.stdout);
    expect(statSync(p12).mode & 0o777).toBe(0o600);
    expect(pkcs12Info(ca, detail.pkcs12, detail.pkcs12_password)).toContain('BEGIN PRIVATE KEY');
    expect(verify(ca, detail.certificate, 'generated')).toMatch(/: OK$/);

    expect(
      expectOneLineError(
        await c.run(['token', 'init', '--type', 'certificate', '--ca', 'ca1', '--csr', csrFile, '--genkey']),
      ),
    ).toBe('authsrv: Give --csr or --genkey, not both');
    expect(
      expectOneLineError(
        await c.run([
          'token',
          'init',
          '--type',
          'certificate',
          '--ca',
          'ca1',
          '--csr',
          join(c.dataDir, 'none'),
        ]),
      ),
    ).toMatch(/^authsrv: --csr: .* can not be read \(ENOENT\)$/);
    expect(
      expectOneLineError(
        await c.run(['token', 'init', '--type', 'certificate', '--ca', 'nope', '--csr', csrFile]),
      ),
    ).toBe("authsrv: The CA connector 'nope' does not exist.");
  });
});
