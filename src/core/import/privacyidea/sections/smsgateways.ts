// SMS gateway definitions (smsgateway + smsgatewayoption: Key, Value, Type option|header, all in
// clear text in privacyIDEA). authsrv's providers carry privacyIDEA's module paths, so the module
// is kept; one authsrv does not offer is refused by the service and reported as skipped. Secret
// options (PASSWORD …) are sealed by the service.
import { type SaveSmsGatewayRequest, saveSmsGateway } from '../../../smsgateway/index.ts';
import { keyValuesByOwner, namesIn, type Planned, piText, serviceSection } from './common.ts';

/**
 * Options privacyIDEA's providers read as a fixed value when they are not stored (its API does not
 * require them), which authsrv's providers require: filled in with that value.
 */
const VALUE_WHEN_ABSENT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // HttpSMSProvider sends JSON only when SEND_DATA_AS_JSON is stored as yes.
  'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider': { SEND_DATA_AS_JSON: 'no' },
};

export const smsGatewaySection = serviceSection<SaveSmsGatewayRequest>({
  name: 'smsgateways',
  async read({ source }) {
    const entries = await keyValuesByOwner(source.db, 'smsgatewayoption', 'gateway_id', { type: 'Type' });
    const rows = await source.db.selectFrom('smsgateway').selectAll().orderBy('id').execute();
    return rows.map((r): Planned<SaveSmsGatewayRequest> => {
      const name = piText(r.identifier);
      const request: SaveSmsGatewayRequest = {
        name,
        description: piText(r.description),
        module: piText(r.providermodule),
        option: {},
        header: {},
        keepOmitted: false,
      };
      for (const e of entries.get(Number(r.id)) ?? [])
        (e.type === 'header' ? request.header : request.option)[e.key] = e.value;
      request.option = { ...VALUE_WHEN_ABSENT[request.module ?? ''], ...request.option };
      return { object: name, item: request };
    });
  },
  existing: namesIn('smsgateway', 'name'),
  write: (ctx, request) => saveSmsGateway(ctx, request),
});
