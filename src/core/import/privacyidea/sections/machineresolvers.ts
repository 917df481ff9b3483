// Machine resolvers (machineresolver + machineresolverconfig: Key, Value, Type). File paths of the
// privacyIDEA host go through --map-path; password-typed values are decrypted and sealed again by
// the machine resolver service. The key `resolver` privacyIDEA's API stored (the name again) is no
// setting and is left out.
import { saveMachineResolver } from '../../../machineresolver/index.ts';
import { decryptedValue, keyValuesByOwner, namesIn, type Planned, piText, serviceSection } from './common.ts';

interface PiMachineResolver {
  name: string;
  params: Record<string, string>;
}

/** Keys privacyIDEA's API stored beside the settings. */
const NOT_SETTINGS = new Set(['resolver', 'name', 'type']);

export const machineResolverSection = serviceSection<PiMachineResolver>({
  name: 'machineresolvers',
  async read({ source, keys, mapPath }) {
    const config = await keyValuesByOwner(source.db, 'machineresolverconfig', 'resolver_id', {
      type: 'Type',
    });
    const rows = await source.db.selectFrom('machineresolver').selectAll().orderBy('name').execute();
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
  existing: namesIn('machineresolver', 'name'),
  write: (ctx, m) => saveMachineResolver(ctx, m.name, m.params),
});
