// What GET /event/handlermodules, /positions, /actions and /conditions show of the modules.

import type { Config } from '../../config/index.ts';
import { ParameterError } from '../../errors.ts';
import {
  type ActionSpecs,
  actionsOf,
  type EventPosition,
  eventHandlerModule,
  eventHandlerModuleNames,
} from '../../event-handlers/index.ts';
import { type ConditionCheck, conditionSpecs } from './conditions.ts';

export function handlerModules(): string[] {
  return eventHandlerModuleNames();
}

function known(name: string) {
  const module = eventHandlerModule(name);
  if (!module) throw new ParameterError(`Unknown handler module: ${name}`);
  return module;
}

export function handlerPositions(name: string): readonly EventPosition[] {
  return known(name).positions;
}

/** The actions of a module under the configuration (Script: one per executable of event.scripts_dir). */
export function handlerActions(name: string, config: Pick<Config, 'event'>): ActionSpecs {
  return actionsOf(known(name), config.event);
}

/** Every module knows the same conditions (privacyIDEA's common base). */
export function handlerConditions(name: string): Record<string, ConditionCheck['spec']> {
  known(name);
  return conditionSpecs();
}
