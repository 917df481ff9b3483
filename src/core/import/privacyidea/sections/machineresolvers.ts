// Machine resolvers (machineresolver + machineresolverconfig: Key, Value, Type). File paths of the
// privacyIDEA host go through --map-path; password-typed values are decrypted and sealed again by
// the machine resolver service. The key `resolver` privacyIDEA's API stored (the name again) is no
// setting and is left out.
import type { Context } from '../../../context.ts';
import { saveMachineResolver } from '../../../machineresolver/index.ts';
import { decryptedValue, keyValuesByOwner, type Planned, piText, serviceSection } from './common.ts';

interface PiMachineResolver {
  name: string;
  params: Record<string, string>;
}

/** Keys privacyIDEA's API stored beside the settings. */
const NOT_SETTINGS = new Set(['resolver', 'name', 'type']);

/** Machine resolver names are compared without case (saving `MigHosts` would change `mighosts`). */
async function existingResolvers(
  ctx: Context,
  planned: ReadonlyArray<{ object: string }>,
): Promise<string[]> {
  const stored = await ctx.store.db.selectFrom('machineresolver').select('name').execute();
  const lower = new Set(stored.map((r) => r.name.toLowerCase()));
  return planned.map((p) => p.object).filter((name) => lower.has(name.toLowerCase()));
}

export const machineResolverSection = serviceSection<PiMachineResolver>({
  name: 'machineresolvers',
  async read({ source, keys, mapPath }) {
    const config = await keyValuesByOwner(source.db, 'machineresolverconfig', 'resolver_id', {
      type: 'Type',
    });
    const rows = await source.db.selectFrom('machineresolver').selectAll().orderBy('id').execute();
    return rows.map((r): Planned<PiMachineResolver> => {
      const name = piText(r.name);
      const params: Record<string, string> = { type: piText(r.rtype) };
      for (const e of config.get(Number(r.id)) ?? []) {
        if (NOT_SETTINGS.has(e.key)) continue;
        if (e.type === 'password') {
          const clear = decryptedValue(keys, e.value, `The setting ${e.key}`);
          if ('refusal' in clear) return { object: name, refusal: clear.refusal };
          params[e.key] = clear.value;
        } else params[e.key] = mapPath(e.value);
      }
      return { object: name, item: { name, params } };
    });
  },
  existing: existingResolvers,
  write: (ctx, m) => saveMachineResolver(ctx, m.name, m.params),
});
