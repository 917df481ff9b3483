// POST /token/load/<filename> (reference 3.5): a token file in the multipart field `file`, its
// `type`, the realms of the new tokens and, for PSKC, the pre-shared key or password and the MAC
// handling. The right `importtokens` is checked here for the first realm and by the service for
// every realm.

import { importTokens } from '../../core/token/index.ts';
import { ParameterError } from '../../errors.ts';
import { textList } from '../../text-list.ts';
import { adminRoute, firing, type Handler, type RouteTable } from '../route.ts';

export function tokenLoadRoutes(r: RouteTable): void {
  r.add('post', '/token/load/:filename', firing('token_load', IMPORT), load);
}

const IMPORT = {
  ...adminRoute('importtokens'),
  target: (p: Readonly<Record<string, string>>) => ({ realm: textList(p.tokenrealms)[0] }),
};

const load: Handler = async ({ params, context, audit }) => {
  const filename = params.required('filename');
  const type = params.required('type');
  const file = params.files.file;
  if (!file) throw ParameterError.missing('file');
  const result = await importTokens(context(), {
    type,
    content: file.content,
    tokenrealms: textList(params.str('tokenrealms')),
    psk: params.nonEmpty('psk'),
    password: params.nonEmpty('password'),
    pskcValidateMAC: params.nonEmpty('pskcValidateMAC'),
    aladdinHashlib: params.nonEmpty('aladdin_hashlib'),
  });
  audit.info = `${type}, ${filename} (imported: ${result.n_imported}, not imported: ${result.n_not_imported})`;
  audit.serial = result.imported.join(', ');
  return { value: { n_imported: result.n_imported, n_not_imported: result.n_not_imported } };
};
