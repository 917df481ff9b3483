import { Command } from 'commander';
import pino from 'pino';
import { newAuditEntry, writeAudit } from '../../core/audit/index.ts';
import { localOperator } from '../../core/context.ts';
import { openRuntime } from '../../core/runtime.ts';
import { migrate } from '../../store/index.ts';
import { configFrom } from '../common.ts';

export function dbCommand(): Command {
  const db = new Command('db').description('database maintenance');
  db.command('upgrade')
    .description('apply pending schema migrations')
    .action(async (_o, cmd: Command) => {
      const rt = await openRuntime(configFrom(cmd), { migrate: false, logger: pino({ level: 'warn' }) });
      try {
        const startedAt = rt.clock();
        const applied = await migrate(rt.store);
        if (applied.length > 0) {
          // Recorded only once it worked: before the first migration there is no audit table to write to.
          const entry = newAuditEntry('CLI db upgrade', startedAt);
          entry.administrator = localOperator().username;
          entry.user_agent = 'authsrv-cli';
          entry.info = applied.join(', ');
          entry.success = true;
          await writeAudit(rt, entry);
        }
        console.log(
          applied.length === 0 ? 'Database schema is up to date.' : `Applied: ${applied.join(', ')}`,
        );
      } finally {
        await rt.store.close();
      }
    });
  return db;
}
