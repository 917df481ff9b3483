// Event handler definitions (eventhandler + eventhandleroption + eventhandlercondition). Options are
// clear text in privacyIDEA; an empty one is an option not set and is left out. authsrv's
// conditions are name → value compared as privacyIDEA's default `equal`: a condition with another
// comparator, a module or action authsrv lacks, or an option it does not know is refused by the
// event service and reported as skipped.
import { type EventDefinitionInput, saveEventDefinition } from '../../../event/index.ts';
import { keyValuesByOwner, namesIn, type Planned, piBool, piText, serviceSection } from './common.ts';

const DEFAULT_COMPARATOR = 'equal';

export const eventHandlerSection = serviceSection<EventDefinitionInput>({
  name: 'eventhandlers',
  async read({ source }) {
    const options = await keyValuesByOwner(source.db, 'eventhandleroption', 'eventhandler_id');
    const conditions = await keyValuesByOwner(source.db, 'eventhandlercondition', 'eventhandler_id', {
      type: 'comparator',
    });
    const rows = await source.db
      .selectFrom('eventhandler')
      .selectAll()
      .orderBy('ordering')
      .orderBy('id')
      .execute();
    return rows.map((r): Planned<EventDefinitionInput> => {
      const id = Number(r.id);
      const name = piText(r.name);
      if (piText(r.condition) !== '')
        return {
          object: name,
          refusal: `privacyIDEA's old single condition '${piText(r.condition)}' has no counterpart in authsrv: give it as a condition`,
        };
      const input: EventDefinitionInput = {
        name,
        event: piText(r.event),
        handlermodule: piText(r.handlermodule),
        action: piText(r.action),
        position: piText(r.position) || 'post',
        ordering: Number(r.ordering ?? 0),
        active: piBool(r.active),
        options: {},
        conditions: {},
      };
      for (const o of options.get(id) ?? []) if (o.value !== '') input.options[o.key] = o.value;
      const conds: Record<string, string> = {};
      for (const c of conditions.get(id) ?? []) {
        if (c.type !== '' && c.type !== DEFAULT_COMPARATOR)
          return {
            object: name,
            refusal: `the condition ${c.key} compares with '${c.type}': authsrv's conditions compare as '${DEFAULT_COMPARATOR}' only`,
          };
        conds[c.key] = c.value;
      }
      input.conditions = conds;
      return { object: name, item: input };
    });
  },
  existing: namesIn('eventhandler', 'name'),
  write: (ctx, input) => saveEventDefinition(ctx, input),
});
