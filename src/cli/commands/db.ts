// `authsrv db`: database maintenance.
import { Command } from 'commander';
import { upgradeDatabase } from '../../core/runtime.ts';
import { withContext } from '../common.ts';

export function dbCommand(): Command {
  return new Command('db').description('database maintenance').addCommand(upgradeCommand());
}

function upgradeCommand(): Command {
  return new Command('upgrade')
    .description('apply pending schema migrations')
    .action(async (_o, cmd: Command) => {
      const applied = await withContext(cmd, upgradeDatabase, { migrate: false });
      console.log(applied.length === 0 ? 'Database schema is up to date.' : `Applied: ${applied.join(', ')}`);
    });
}
