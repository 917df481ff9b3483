// RADIUS server definitions (table radiusserver), to which RADIUS tokens forward. The secret
// (config key, `iv:ct`) is decrypted and sealed again by the RADIUS server service. privacyIDEA's
// `dictionary` file has no counterpart: authsrv's RADIUS client carries the attributes it uses.
import { type RadiusServerInput, setRadiusServer } from '../../../radiusserver/index.ts';
import { decryptedValue, namesIn, type Planned, piText, serviceSection } from './common.ts';

interface PiRadiusServer {
  identifier: string;
  input: RadiusServerInput;
}

export const radiusServerSection = serviceSection<PiRadiusServer>({
  name: 'radiusservers',
  async read({ source, keys }) {
    const rows = await source.db.selectFrom('radiusserver').selectAll().orderBy('id').execute();
    return rows.map((r): Planned<PiRadiusServer> => {
      const identifier = piText(r.identifier);
      const secret = decryptedValue(keys, piText(r.secret), 'The secret');
      if ('refusal' in secret) return { object: identifier, refusal: secret.refusal };
      const input: RadiusServerInput = {
        server: piText(r.server),
        port: piText(r.port),
        secret: secret.value,
        description: piText(r.description),
      };
      if (piText(r.timeout) !== '') input.timeout = piText(r.timeout);
      if (piText(r.retries) !== '') input.retries = piText(r.retries);
      return { object: identifier, item: { identifier, input } };
    });
  },
  existing: namesIn('radiusserver', 'identifier'),
  write: (ctx, s) => setRadiusServer(ctx, s.identifier, s.input),
});
