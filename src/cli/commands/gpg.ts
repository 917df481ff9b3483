// `authsrv gpg`: the GnuPG keys of PGP-encrypted token files (docs/gpg.md). import-key stores an
// armored private key sealed by the security module; its passphrase never comes from the command
// line (ps, shell history): a hidden prompt on a terminal, or the first line of standard input
// with --passphrase-stdin. list shows the imported keys and GET /system/gpgkeys' public keys.
import { Command } from 'commander';
import { gpgKeyIsProtected, gpgKeys, importGpgKey, listImportedKeys } from '../../core/gpg/index.ts';
import {
  printJson,
  printTable,
  promptHidden,
  readStdinLine,
  readTextFile,
  runAudited,
  withContext,
} from '../common.ts';

export function gpgCommand(): Command {
  return new Command('gpg')
    .description('GnuPG keys that decrypt PGP-encrypted token files')
    .addCommand(listCommand())
    .addCommand(importKeyCommand());
}

function listCommand(): Command {
  return new Command('list')
    .description('list the imported private keys and the public keys of GET /system/gpgkeys')
    .option('--json', 'print JSON: {imported: [...], public: {keyid: {fingerprint, armor}}}')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const { imported, published } = await withContext(cmd, async (ctx) => ({
        imported: await listImportedKeys(ctx),
        published: await gpgKeys(ctx),
      }));
      if (o.json) return printJson({ imported, public: published });
      const own = new Set(imported.map((k) => k.keyid));
      printTable(
        ['Key id', 'Fingerprint', 'Private key', 'User ids'],
        [
          ...imported.map((k) => [k.keyid, k.fingerprint, 'imported', k.userids.join('; ')]),
          ...Object.entries(published)
            .filter(([id]) => !own.has(id))
            .map(([id, k]) => [id, k.fingerprint, '-', '']),
        ],
      );
    });
}

function importKeyCommand(): Command {
  return new Command('import-key')
    .argument('<file>', 'the ASCII-armored private key (gpg --armor --export-secret-keys)')
    .description('store a private key, sealed, to decrypt token files encrypted to it')
    .option('--passphrase-stdin', "read the key's passphrase from the first line of standard input")
    .option('--json', 'print the stored key as JSON')
    .action(async (file: string, o: { passphraseStdin?: boolean; json?: boolean }, cmd: Command) => {
      const armor = readTextFile(file);
      let passphrase: string | undefined;
      if (o.passphraseStdin) passphrase = await readStdinLine();
      else if (await gpgKeyIsProtected(armor)) {
        passphrase = await promptHidden(
          'Passphrase of the key:',
          'No terminal to ask for the passphrase: pipe it in with --passphrase-stdin',
        );
      }
      const stored = await runAudited(cmd, { command: 'gpg import-key', detail: file }, (ctx) =>
        importGpgKey(ctx, armor, passphrase),
      );
      if (o.json) return printJson(stored);
      console.log(`Imported ${stored.keyid} (${stored.fingerprint}) ${stored.userids.join('; ')}`);
    });
}
