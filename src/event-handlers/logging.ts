// Logging: writes a message (with tags) to a named logger of the server's log (reference 7.1).
import { type EventHandlerModule, replaceTags } from './module.ts';

const LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;

export const loggingModule: EventHandlerModule = {
  name: 'Logging',
  positions: ['post', 'pre'],
  actions: {
    logging: {
      name: { type: 'str', description: 'The name of the logger (default pi-eventlogger).' },
      level: { type: 'str', description: 'The log level (default INFO).', value: LEVELS },
      message: { type: 'text', description: 'The message to log; tags like {serial} are replaced.' },
    },
  },
  async run(_action, run) {
    const name = run.options.name || 'pi-eventlogger';
    const level = (run.options.level || 'INFO').toUpperCase();
    const message = replaceTags(run.options.message || 'event={action} triggered', run.tags);
    run.log(name, level, message);
    return true;
  },
};
