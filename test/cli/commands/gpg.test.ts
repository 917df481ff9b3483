// `authsrv gpg import-key|list` and `authsrv token import` of a file encrypted by Debian's gpg:
// the private key stored sealed (plain, or with its passphrase from standard input), clear
// one-line errors that store nothing, the listing as a table and as JSON, audit rows.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { type GnupgHome, gnupgHome } from '../../helpers/gnupg.ts';
import { SEED } from '../../helpers/token-files.ts';

const PLAIN = 'Plain key <plain@example.org>';
const PROTECTED = 'Protected key <protected@example.org>';
const PASSPHRASE = 'Cli-Pass-Phrase-3';

let g: GnupgHome;
let plain: { keyid: string; fingerprint: string };
let prot: { keyid: string; fingerprint: string };
let plainArmor: string;
let protArmor: string;

beforeAll(() => {
  g = gnupgHome();
  plain = g.generate(PLAIN);
  prot = g.generate(PROTECTED, PASSPHRASE);
  plainArmor = g.exportSecret(PLAIN);
  protArmor = g.exportSecret(PROTECTED, PASSPHRASE);
}, 180_000);
afterAll(() => g?.close());

describe.each(cliDialects())('authsrv gpg on %s', (dialect) => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await cliEnv(dialect);
  });
  afterEach(async () => c?.close());

  const file = (name: string, text: string) => {
    const path = join(c.dataDir, name);
    writeFileSync(path, text);
    return path;
  };

  it('imports keys sealed, lists them, and imports a token file encrypted to one', async () => {
    const plainFile = file('plain.asc', plainArmor);
    const protFile = file('protected.asc', protArmor);
    expect(await c.run(['gpg', 'list', '--json'])).toMatchObject({
      code: 0,
      stdout: '{\n  "imported": [],\n  "public": {}\n}\n',
    });

    const first = await c.run(['gpg', 'import-key', plainFile]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toBe(`Imported ${plain.keyid} (${plain.fingerprint}) ${PLAIN}\n`);
    // A protected key without a terminal and without --passphrase-stdin; a wrong passphrase.
    expect(expectOneLineError(await c.run(['gpg', 'import-key', protFile]))).toMatch(/--passphrase-stdin/);
    expect(
      expectOneLineError(await c.run(['gpg', 'import-key', protFile, '--passphrase-stdin'], 'wrong\n')),
    ).toMatch(/passphrase does not unlock/);
    expect(expectOneLineError(await c.run(['gpg', 'import-key', file('junk.asc', 'junk')]))).toMatch(
      /no ASCII-armored PGP private key/,
    );
    expect(expectOneLineError(await c.run(['gpg', 'import-key', join(c.dataDir, 'missing.asc')]))).toMatch(
      /Cannot read/,
    );
    const second = await c.run(
      ['gpg', 'import-key', protFile, '--passphrase-stdin', '--json'],
      `${PASSPHRASE}\n`,
    );
    expect(JSON.parse(second.stdout)).toMatchObject({
      keyid: prot.keyid,
      fingerprint: prot.fingerprint,
      userids: [PROTECTED],
    });

    const listed = JSON.parse((await c.run(['gpg', 'list', '--json'])).stdout);
    expect(listed.imported.map((k: { keyid: string }) => k.keyid).sort()).toEqual(
      [plain.keyid, prot.keyid].sort(),
    );
    expect(listed.public[plain.keyid].armor).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    const table = await c.run(['gpg', 'list']);
    expect(table.stdout).toContain(plain.fingerprint);
    expect(table.stdout).toContain(PROTECTED);

    const rt = await c.runtime();
    for (const row of await rt.store.db.selectFrom('gpgkey').select('private_key').execute()) {
      expect(row.private_key).not.toContain('PRIVATE KEY');
    }
    // Audited: the attempts that reached the service (the unreadable file and the missing
    // passphrase are refused before it, as with every CLI secret).
    const audit = await rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'administrator'])
      .where('action', '=', 'CLI gpg import-key')
      .orderBy('id')
      .execute();
    expect(audit.map((r) => Number(r.success))).toEqual([1, 0, 0, 1]);
    expect(audit[0]!.administrator).toBe(`${CLI_USER}@cli`);

    const encrypted = file('tokens.csv.asc', g.encrypt(`CLIGPG1, ${SEED}, hotp, 6\n`, PROTECTED));
    const imported = await c.run(['token', 'import', encrypted, '--type', 'oathcsv', '--json']);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      n_imported: 1,
      n_not_imported: 0,
      imported: ['CLIGPG1'],
    });
    const garbage = file('bad.asc', '-----BEGIN PGP MESSAGE-----\n\nAAAA\n-----END PGP MESSAGE-----\n');
    expect(expectOneLineError(await c.run(['token', 'import', garbage, '--type', 'oathcsv']))).toMatch(
      /PGP message/,
    );
  });
});
