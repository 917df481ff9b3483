// Event handler modules (reference 7.1): one interface (module.ts), this registry, one file per
// module. Core's event/ checks definitions against a module's positions and actions and runs them.
import { counterModule } from './counter.ts';
import { customUserAttributesModule } from './custom-user-attributes.ts';
import { loggingModule } from './logging.ts';
import type { ActionSpecs, EventHandlerModule, EventSettings } from './module.ts';
import { requestManglerModule } from './request-mangler.ts';
import { responseManglerModule } from './response-mangler.ts';
import { scriptModule } from './script.ts';

export { formatAuthDate, nowOffset, replaceNowTags, UNIT_MS } from './now-tag.ts';

import { tokenModule } from './token.ts';
import { userNotificationModule } from './user-notification.ts';
import { webhookModule } from './webhook.ts';

export type {
  ActionSpecs,
  EventAttachment,
  EventCaller,
  EventCounters,
  EventEnrollment,
  EventHandlerModule,
  EventMail,
  EventMailer,
  EventPosition,
  EventRun,
  EventSettings,
  EventSms,
  EventTags,
  EventUser,
  EventUserAttributes,
  OptionSpec,
  RequestParameters,
  ResponseBody,
  ResponseValue,
  TokenAttribute,
  TokenOperations,
} from './module.ts';
export { HandlerAbortError } from './module.ts';

// privacyIDEA's order (reference 7.1), without Federation and Container.
const MODULES: readonly EventHandlerModule[] = [
  userNotificationModule,
  tokenModule,
  scriptModule,
  counterModule,
  requestManglerModule,
  responseManglerModule,
  loggingModule,
  customUserAttributesModule,
  webhookModule,
];

/** The module of a name, or undefined. */
export function eventHandlerModule(name: string): EventHandlerModule | undefined {
  return MODULES.find((m) => m.name === name);
}

/** The actions of a module under the server's settings (Script: one per executable of its directory). */
export function actionsOf(module: EventHandlerModule, settings: EventSettings): ActionSpecs {
  return module.actionsWith ? module.actionsWith(settings) : module.actions;
}

/** The names of the modules, in the order GET /event/handlermodules lists them. */
export function eventHandlerModuleNames(): string[] {
  return MODULES.map((m) => m.name);
}
