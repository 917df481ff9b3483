// CA connectors (caconnector + caconnectorconfig: Key, Value, Type). File paths of the privacyIDEA
// host go through --map-path; password-typed values (the CA key's password) are decrypted and
// sealed again by the CA connector service, which also opens the CA: a type authsrv lacks or a CA
// whose files are missing is reported as skipped. The key `name` privacyIDEA's API stored (the
// connector's name again) is no setting and is left out.
import { setCaConnector } from '../../../caconnector/index.ts';
import { decryptedValue, keyValuesByOwner, namesIn, type Planned, piText, serviceSection } from './common.ts';

interface PiCaConnector {
  name: string;
  catype: string;
  config: Record<string, string>;
}

export const caConnectorSection = serviceSection<PiCaConnector>({
  name: 'caconnectors',
  async read({ source, keys, mapPath }) {
    const config = await keyValuesByOwner(source.db, 'caconnectorconfig', 'caconnector_id', { type: 'Type' });
    const rows = await source.db.selectFrom('caconnector').selectAll().orderBy('id').execute();
    return rows.map((r): Planned<PiCaConnector> => {
      const name = piText(r.name);
      const settings: Record<string, string> = {};
      for (const e of config.get(Number(r.id)) ?? []) {
        if (e.key === 'name') continue;
        if (e.type === 'password') {
          const clear = decryptedValue(keys, e.value, `The setting ${e.key}`);
          if ('refusal' in clear) return { object: name, refusal: clear.refusal };
          settings[e.key] = clear.value;
        } else settings[e.key] = mapPath(e.value);
      }
      return { object: name, item: { name, catype: piText(r.catype), config: settings } };
    });
  },
  existing: namesIn('caconnector', 'name'),
  write: (ctx, c) => setCaConnector(ctx, c.name, c.catype, c.config),
});
