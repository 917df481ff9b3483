// The CA connectors of the document. /caconnector/ is built on its own branch; until it is merged
// there are none to list. Wiring it: return its list here, e.g.
//   return (await listCaConnectors(ctx)).map((c) => ({ name: c.connectorname, type: c.type,
//     data: c.data, templates: Object.keys(c.templates ?? {}) }));
// and add 'caconnector' to a CORE_LAYERS layer below 'documentation'. The document censors the
// key password (and any other secret-named setting) itself.
import type { Context } from '../context.ts';

export interface DocumentedCaConnector {
  name: string;
  type: string;
  data: Record<string, string>;
  templates: string[];
}

export async function caConnectorsOf(_ctx: Context): Promise<DocumentedCaConnector[]> {
  return [];
}
