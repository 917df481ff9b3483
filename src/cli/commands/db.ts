import { Command } from 'commander';
import pino from 'pino';
import { openRuntime } from '../../core/runtime.ts';
import { migrate } from '../../store/database.ts';
import { configFrom } from '../common.ts';

export function dbCommand(): Command {
  const db = new Command('db').description('database maintenance');
  db.command('upgrade')
    .description('apply pending schema migrations')
    .action(async (_o, cmd: Command) => {
      const rt = await openRuntime(configFrom(cmd), { migrate: false, logger: pino({ level: 'warn' }) });
      try {
        const applied = await migrate(rt.store);
        console.log(
          applied.length === 0 ? 'Database schema is up to date.' : `Applied: ${applied.join(', ')}`,
        );
      } finally {
        await rt.store.close();
      }
    });
  return db;
}
