// Event handler modules (reference 7.1): one interface (module.ts), this registry, one file per
// module. Core's event/ checks definitions against a module's positions and actions and runs them.
import { counterModule } from './counter.ts';
import { loggingModule } from './logging.ts';
import type { EventHandlerModule } from './module.ts';

export { formatAuthDate, nowOffset, replaceNowTags, UNIT_MS } from './now-tag.ts';

import { tokenModule } from './token.ts';
import { userNotificationModule } from './user-notification.ts';
import { webhookModule } from './webhook.ts';

export type {
  ActionSpecs,
  EventAttachment,
  EventCounters,
  EventEnrollment,
  EventHandlerModule,
  EventMail,
  EventMailer,
  EventPosition,
  EventRun,
  EventTags,
  OptionSpec,
  TokenAttribute,
  TokenOperations,
} from './module.ts';

const MODULES: readonly EventHandlerModule[] = [
  userNotificationModule,
  tokenModule,
  counterModule,
  loggingModule,
  webhookModule,
];

/** The module of a name, or undefined. */
export function eventHandlerModule(name: string): EventHandlerModule | undefined {
  return MODULES.find((m) => m.name === name);
}

/** The names of the modules, in the order GET /event/handlermodules lists them. */
export function eventHandlerModuleNames(): string[] {
  return MODULES.map((m) => m.name);
}
