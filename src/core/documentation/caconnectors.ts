// The CA connectors of the document: each connector's type, configuration (the key password
// censored by /caconnector/ already; the document censors any other secret-named setting itself)
// and the names of its templates.
import { listCaConnectors } from '../caconnector/index.ts';
import type { Context } from '../context.ts';

export interface DocumentedCaConnector {
  name: string;
  type: string;
  data: Record<string, string>;
  templates: string[];
}

export async function caConnectorsOf(ctx: Context): Promise<DocumentedCaConnector[]> {
  return (await listCaConnectors(ctx)).map((c) => ({
    name: c.connectorname,
    type: c.type,
    data: c.data,
    templates: Object.keys(c.templates),
  }));
}
