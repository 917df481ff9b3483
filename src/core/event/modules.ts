// What GET /event/handlermodules, /positions, /actions and /conditions show of the modules.
import { ParameterError } from '../../errors.ts';
import {
  type ActionSpecs,
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

export function handlerActions(name: string): ActionSpecs {
  return known(name).actions;
}

/** Every module knows the same conditions (privacyIDEA's common base). */
export function handlerConditions(name: string): Record<string, ConditionCheck['spec']> {
  known(name);
  return conditionSpecs();
}
