// Firing an event (reference 7.1 "Execution"): the active definitions bound to the event at this
// position run in their ordering when their conditions hold; each run writes an audit row of its
// own (`PRE-EVENT <event>>><module>:<action>`). A failing handler is logged and its row says so;
// it never breaks the request, unless it aborts it (HandlerAbortError: Script with raise_error),
// which ends the firing and answers the request with the error.
import {
  type EventTags,
  eventHandlerModule,
  HandlerAbortError,
  type RequestParameters,
  type ResponseBody,
} from '../../event-handlers/index.ts';
import { callerColumns, newAuditEntry, writeAudit } from '../audit/index.ts';
import type { Runtime } from '../context.ts';
import { sendMailVia } from '../smtpserver/index.ts';
import { conditionsHold } from './conditions.ts';
import { eventCounters } from './counters.ts';
import { type EventDefinition, eventDefinitions } from './definitions.ts';
import { type EventFacts, type EventRequest, type EventResult, eventFacts, type Position } from './facts.ts';
import { enrollForEvent, tokenOperations } from './token-operations.ts';
import { eventSms, userAttributes } from './user-services.ts';

/** What the front end lets the modules change: the request's parameters, the JSON answer (post). */
export interface EventEdits {
  parameters?: RequestParameters | undefined;
  response?: ResponseBody | undefined;
}

const LOG_LEVELS: Readonly<Record<string, 'debug' | 'info' | 'warn' | 'error' | 'fatal'>> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  WARN: 'warn',
  ERROR: 'error',
  CRITICAL: 'fatal',
};

/** The notification tags of reference 7.1 that this request can fill. */
async function tagsOf(rt: Runtime, facts: EventFacts): Promise<EventTags> {
  const token = await facts.token();
  const user = await facts.user();
  const now = rt.clock();
  return {
    action: facts.event,
    admin: facts.role === 'admin' ? (facts.caller?.username ?? '') : '',
    serial: token?.serial ?? facts.serial ?? '',
    tokentype: token?.type ?? '',
    tokendescription: token?.description ?? '',
    user: user?.login ?? '',
    username: user?.login ?? '',
    userrealm: user?.realm ?? '',
    realm: user?.realm ?? '',
    client_ip: facts.client,
    time: now.toISOString().slice(11, 19),
    date: now.toISOString().slice(0, 10),
    // Added by earlier definitions of the request ({pin} of Token's set random pin).
    ...facts.addedTags,
  };
}

async function runDefinition(
  rt: Runtime,
  definition: EventDefinition,
  facts: EventFacts,
  position: Position,
  edits: EventEdits,
): Promise<void> {
  const module = eventHandlerModule(definition.handlermodule);
  const startedAt = rt.clock();
  const audit = newAuditEntry(
    `${position.toUpperCase()}-EVENT ${facts.event}>>${definition.handlermodule}:${definition.action}`,
    startedAt,
    facts.client,
  );
  audit.info = definition.name;
  audit.action_detail = JSON.stringify(definition.options);
  if (facts.caller) Object.assign(audit, callerColumns(facts.caller));
  let aborted: HandlerAbortError | undefined;
  try {
    if (!(await conditionsHold(definition.conditions, facts, position))) return;
    if (!module) throw new Error(`unknown handler module ${definition.handlermodule}`);
    const serial = (await facts.token())?.serial;
    audit.serial = serial ?? facts.serial ?? '';
    audit.success = await module.run(definition.action, {
      event: facts.event,
      position,
      options: definition.options,
      tags: await tagsOf(rt, facts),
      log: (logger, level, message) => rt.log.child({ logger })[LOG_LEVELS[level] ?? 'info'](message),
      token: serial === undefined ? undefined : tokenOperations(rt, facts, serial),
      counters: eventCounters(rt),
      mailer: {
        send: (identifier, mail) => sendMailVia(rt, identifier, mail),
        addressOf: async (who) =>
          (await (who === 'tokenowner' ? facts.owner() : facts.loggedInUser()))?.email,
      },
      now: rt.clock(),
      enroll: (enrollment) => enrollForEvent(rt, facts, enrollment),
      addTags: (tags) => Object.assign(facts.addedTags, tags),
      settings: rt.config.event,
      parameters: edits.parameters,
      response: position === 'post' ? edits.response : undefined,
      userAttributes: userAttributes(rt, facts),
      sms: eventSms(rt, facts),
      caller: facts.caller && {
        username: facts.caller.username,
        realm: facts.caller.realm,
        role: facts.caller.role,
      },
    });
  } catch (e) {
    rt.log.error({ err: e, event: facts.event, definition: definition.id }, 'event handler failed');
    audit.success = false;
    if (e instanceof HandlerAbortError) aborted = e;
  }
  await writeAudit(rt, audit).catch((e: unknown) =>
    rt.log.error({ err: e, audit }, 'the audit row of an event handler could not be written'),
  );
  if (aborted) throw aborted;
}

/**
 * Fires an event at a position: every active definition bound to it runs, in `ordering`. Without
 * such definitions this costs only the look into the definitions kept in memory. `edits` lets the
 * RequestMangler and ResponseMangler change what the endpoint sees and what the client gets; a
 * HandlerAbortError of a definition is thrown on, after its audit row.
 */
export async function fireEvent(
  rt: Runtime,
  request: EventRequest,
  position: Position,
  result?: EventResult,
  edits: EventEdits = {},
): Promise<void> {
  let bound: EventDefinition[];
  try {
    bound = (await eventDefinitions(rt)).filter(
      (d) => d.active && d.position === position && d.event.includes(request.event),
    );
  } catch (e) {
    rt.log.error({ err: e, event: request.event }, 'event definitions could not be read');
    return;
  }
  if (bound.length === 0) return;
  const facts = eventFacts(rt, request, result);
  for (const definition of bound) await runDefinition(rt, definition, facts, position, edits);
}
