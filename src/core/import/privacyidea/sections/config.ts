// The system configuration (table config: Key, Value, Type, Description). Types carry over as they
// are ('', public, int, password …); password-typed values are decrypted with privacyIDEA's config
// key and sealed again by setConfig. `__timestamp__` is privacyIDEA's cache marker, no setting.
import { type ConfigEntry, setConfig } from '../../../system/index.ts';
import { byCodeUnits, decryptedValue, namesIn, type Planned, piText, serviceSection } from './common.ts';

const CACHE_MARKER = '__timestamp__';

export const configSection = serviceSection<ConfigEntry>({
  name: 'config',
  async read({ source, keys }) {
    const rows = await source.db
      .selectFrom('config')
      .select(['Key', 'Value', 'Type', 'Description'])
      .execute();
    // Sorted here, not by the database: its collation orders mixed case differently per dialect.
    rows.sort((a, b) => byCodeUnits(piText(a.Key), piText(b.Key)));
    return rows.map((r): Planned<ConfigEntry> => {
      const key = piText(r.Key);
      if (key === CACHE_MARKER)
        return { object: key, refusal: "privacyIDEA's marker of its configuration cache, not a setting" };
      const type = piText(r.Type);
      let value = piText(r.Value);
      if (type === 'password') {
        const clear = decryptedValue(keys, value, 'The value');
        if ('refusal' in clear) return { object: key, refusal: clear.refusal };
        value = clear.value;
      }
      return { object: key, item: { key, value, type, description: piText(r.Description) } };
    });
  },
  existing: namesIn('config', 'name'),
  write: (ctx, entry) => setConfig(ctx, [entry]),
});
