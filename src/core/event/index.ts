// Event handling (/event/, reference 7.1): definitions binding events to a handler module's action
// (definitions.ts), the conditions they check (conditions.ts), what a request tells about itself
// (facts.ts) and the firing around each endpoint that names an event (fire.ts).

export type {
  RequestParameters,
  ResponseBody,
  ResponseValue,
} from '../../event-handlers/index.ts';
export { eventCounterValues, readEventCounter } from './counters.ts';
export {
  deleteEventDefinition,
  type EventDefinition,
  type EventDefinitionInput,
  listEventDefinitions,
  saveEventDefinition,
  setEventDefinitionActive,
} from './definitions.ts';
export type { EventRequest, EventResult } from './facts.ts';
export { type EventEdits, fireEvent } from './fire.ts';
export { handlerActions, handlerConditions, handlerModules, handlerPositions } from './modules.ts';
