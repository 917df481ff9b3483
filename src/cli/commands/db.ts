// `authsrv db`: database maintenance.
import { Command } from 'commander';
import pino from 'pino';
import { recordCliAction } from '../../core/audit/index.ts';
import { localOperator, withCaller } from '../../core/context.ts';
import { openRuntime } from '../../core/runtime.ts';
import { migrate } from '../../store/index.ts';
import { configFrom } from '../common.ts';

export function dbCommand(): Command {
  return new Command('db').description('database maintenance').addCommand(upgradeCommand());
}

function upgradeCommand(): Command {
  return new Command('upgrade')
    .description('apply pending schema migrations')
    .action(async (_o, cmd: Command) => {
      const rt = await openRuntime(configFrom(cmd), { migrate: false, logger: pino({ level: 'warn' }) });
      try {
        const startedAt = rt.clock();
        const applied = await migrate(rt.store);
        if (applied.length > 0) {
          // Recorded only once it worked: before the first migration there is no audit table to write to.
          const action = { command: 'db upgrade', detail: applied.join(', ') };
          await recordCliAction(withCaller(rt, localOperator()), action, startedAt);
        }
        console.log(
          applied.length === 0 ? 'Database schema is up to date.' : `Applied: ${applied.join(', ')}`,
        );
      } finally {
        await rt.store.close();
      }
    });
}
