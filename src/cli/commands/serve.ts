import { Command } from 'commander';
import { ensureInitialAdmin } from '../../core/admin.ts';
import { rotateAudit } from '../../core/audit.ts';
import { localOperator, withCaller } from '../../core/context.ts';
import { closeUserStores } from '../../core/resolver.ts';
import { openRuntime } from '../../core/runtime.ts';
import { VERSION } from '../../version.ts';
import { configFrom } from '../common.ts';

const ROTATE_EVERY_MS = 3_600_000;

export function serveCommand(): Command {
  return new Command('serve')
    .description('run the authentication server')
    .action(async (_opts, cmd: Command) => {
      const config = configFrom(cmd);
      // The HTTP stack is loaded only here, so that the other commands start quickly.
      const { startServer } = await import('../../http/server.ts');
      const rt = await openRuntime(config);
      const operator = withCaller(rt, localOperator());
      const password = await ensureInitialAdmin(operator);
      if (password) {
        console.log(`Created administrator "admin" with password: ${password}`);
        console.log('This password is shown only once. Change it with: authsrv admin passwd admin');
      }
      if (!rt.hsm.isReady()) {
        console.log(
          'The encryption key is password protected: unlock it with POST /system/hsm (or security.key_password_file).',
        );
      }
      const server = await startServer(rt);
      console.log(
        `authsrv ${VERSION} listening on ${server.url} (node ${rt.node}, database ${rt.store.dialect})`,
      );

      const { maxAgeSeconds, maxRows } = config.audit;
      const rotate = async () => {
        try {
          const r = await rotateAudit(rt, { maxAgeSeconds, maxRows });
          if (r.deletedByAge + r.deletedByCount > 0) rt.log.info(r, 'audit rotated');
        } catch (e) {
          rt.log.error({ err: e }, 'audit rotation failed');
        }
      };
      const timer = maxAgeSeconds > 0 || maxRows > 0 ? setInterval(rotate, ROTATE_EVERY_MS) : undefined;
      timer?.unref();

      await new Promise<void>((resolve) => {
        const stop = async (signal: string) => {
          rt.log.info({ signal }, 'shutting down');
          if (timer) clearInterval(timer);
          await server.close();
          await closeUserStores(rt);
          await rt.store.close();
          resolve();
        };
        process.once('SIGTERM', () => void stop('SIGTERM'));
        process.once('SIGINT', () => void stop('SIGINT'));
      });
    });
}
