// /audit (reference 7.4, spec "Authentication endpoint and audit"): searching the audit log and
// downloading it as CSV.
import { type AuditQuery, searchAudit, startAuditExport } from '../../core/audit/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { adminRoute, anyRoleRoute, type Handler, type RouteTable } from '../route.ts';

export function auditRoutes(r: RouteTable): void {
  r.add('get', '/audit/', { ...anyRoleRoute('auditlog'), target: NO_TARGET }, search);
  r.add('get', '/audit/:csvfile', { ...adminRoute('auditlog_download'), target: NO_TARGET }, download);
}

// `user` and `realm` are filters here, not the target of the right: which rows a caller may see
// is decided by scopeToCaller from the realms of the policies that grant it.
const NO_TARGET = () => ({});

const search: Handler = async ({ params, context }) => ({
  value: await searchAudit(context(), auditQuery(params)),
});

const download: Handler = async ({ params, context }) => {
  const name = params.required('csvfile');
  const { lines } = await startAuditExport(context(), auditQuery(params));
  return { file: { name, contentType: 'text/csv', body: lines } };
};

/** The parameters that are not a filter on a column. */
const CONTROL = new Set(['page', 'page_size', 'sortorder', 'timelimit', 'nonce', 'csvfile']);

function auditQuery(params: Params): AuditQuery {
  const filters: Record<string, string> = {};
  for (const [k, v] of Object.entries(params.strings())) if (!CONTROL.has(k)) filters[k] = v;
  const int = (name: string) => {
    const v = params.str(name);
    if (v === undefined || v === '') return undefined;
    if (!/^-?\d+$/.test(v)) throw new ParameterError(`${name} must be a whole number`);
    return Number(v);
  };
  const sortorder = params.str('sortorder') ?? 'desc';
  if (sortorder !== 'asc' && sortorder !== 'desc')
    throw new ParameterError("sortorder must be 'asc' or 'desc'");
  return {
    filters,
    timelimit: params.nonEmpty('timelimit'),
    page: int('page'),
    pageSize: int('page_size'),
    sortorder,
  };
}
