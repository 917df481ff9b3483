// Tokens attached to machines (tables machinetoken, machinetokenoptions) through the machine token
// service, after the tokens and the machine resolvers (section machineresolvers) are written. An
// attachment is reported when its token or its machine resolver is not imported.
import { attachToken } from '../../../machine/index.ts';
import type { ImportSection, Skipped } from '../section.ts';
import { piText } from './common.ts';
import { namesById } from './pi-values.ts';

interface PlannedAttachment {
  name: string;
  serial: string;
  application: string;
  machineid: string;
  resolver: string;
  options: Record<string, string>;
}

export const machineTokenSection: ImportSection = {
  name: 'machinetokens',
  async plan(input) {
    const db = input.source.db;
    const rows = await db
      .selectFrom('machinetoken')
      .select(['id', 'token_id', 'machineresolver_id', 'machine_id', 'application'])
      .orderBy('id')
      .execute();
    const options = await db
      .selectFrom('machinetokenoptions')
      .select(['machinetoken_id', 'mt_key', 'mt_value'])
      .execute();
    const serials = new Map(
      (await db.selectFrom('token').select(['id', 'serial']).execute()).map((t) => [
        Number(t.id),
        piText(t.serial),
      ]),
    );
    const resolverNames = await namesById(db, 'machineresolver');
    const importable = new Set(input.planned('machineresolvers').map((n) => n.toLowerCase()));
    const tokens = new Set(input.planned('tokens'));
    const skipped: Skipped[] = [];
    const planned: PlannedAttachment[] = [];
    for (const row of rows) {
      const serial = serials.get(Number(row.token_id)) ?? '';
      const resolver =
        row.machineresolver_id === null ? '' : (resolverNames.get(Number(row.machineresolver_id)) ?? '?');
      const machineid = piText(row.machine_id);
      const application = piText(row.application);
      const name = `${serial} ${application}${machineid ? ` on ${machineid} (${resolver})` : ''}`;
      if (!tokens.has(serial)) skipped.push({ object: name, reason: `the token ${serial} is not imported` });
      else if (resolver && !importable.has(resolver.toLowerCase()))
        skipped.push({ object: name, reason: `the machine resolver ${resolver} is not imported` });
      else
        planned.push({
          name,
          serial,
          application,
          machineid,
          resolver,
          options: Object.fromEntries(
            options
              .filter((o) => Number(o.machinetoken_id) === Number(row.id))
              .map((o) => [piText(o.mt_key), piText(o.mt_value)]),
          ),
        });
    }
    return {
      objects: planned.map((p) => p.name),
      skipped,
      conflicts: [],
      async write(inner, progress) {
        for (const [i, p] of planned.entries()) {
          await attachToken(inner, {
            serial: p.serial,
            application: p.application,
            options: p.options,
            ...(p.machineid ? { machineid: p.machineid, resolver: p.resolver } : {}),
          });
          progress(i + 1);
        }
      },
    };
  },
};
