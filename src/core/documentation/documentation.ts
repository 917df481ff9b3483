// GET /system/documentation: the configuration of this installation as one reStructuredText
// document. It reads every resource, so it sits above all of them.
import { listAdmins } from '../auth/index.ts';
import type { Context } from '../context.ts';
import { listConfig } from '../system/index.ts';

/** A reStructuredText report of the configuration; secrets appear only as __CENSORED__. */
export async function documentation(ctx: Context): Promise<string> {
  const lines: string[] = [];
  const heading = (title: string, mark: string) => lines.push('', title, mark.repeat(title.length), '');
  const title = `authsrv configuration of node ${ctx.node}`;
  lines.push('='.repeat(title.length), title, '='.repeat(title.length), '');
  lines.push(`Generated: ${ctx.clock().toISOString()}`, '');
  heading('Server', '-');
  const c = ctx.config;
  const serverRows: [string, string][] = [
    ['node name', ctx.node],
    ['database', ctx.store.dialect],
    ['listen', `${c.http.host}:${c.http.port}${c.http.tlsCert ? ' (HTTPS)' : ''}`],
    ['trusted proxies', c.http.trustedProxies.join(', ') || '(none)'],
    ['response signing', c.security.signResponses ? 'on' : 'off'],
    ['JWT validity', `${c.security.jwtValidity} s`],
    ['security module', ctx.hsm.isReady() ? 'ready' : 'not ready'],
    ['audit max age', c.audit.maxAgeSeconds ? `${c.audit.maxAgeSeconds} s` : 'unlimited'],
    ['audit max rows', c.audit.maxRows ? String(c.audit.maxRows) : 'unlimited'],
  ];
  lines.push(...rstTable(['Setting', 'Value'], serverRows));
  heading('System configuration', '-');
  const config = await listConfig(ctx);
  lines.push(...rstTable(['Key', 'Value'], Object.entries(config)));
  heading('Administrators', '-');
  const admins = await listAdmins(ctx);
  lines.push(
    ...rstTable(
      ['Name', 'Created'],
      admins.map((a) => [a.name, a.createdAt]),
    ),
  );
  return `${lines.join('\n')}\n`;
}

function rstTable(header: [string, string], rows: [string, string][]): string[] {
  const clean = (s: string) => s.replace(/[\r\n]+/g, ' ');
  const all = [header, ...rows.map(([a, b]) => [clean(a), clean(b)] as [string, string])];
  const w0 = Math.max(...all.map((r) => r[0].length), 1);
  const w1 = Math.max(...all.map((r) => r[1].length), 1);
  const rule = `${'='.repeat(w0)}  ${'='.repeat(w1)}`;
  const line = ([a, b]: [string, string]) => `${a.padEnd(w0)}  ${b}`.trimEnd();
  if (rows.length === 0) return ['(none)'];
  return [rule, line(header), rule, ...all.slice(1).map(line), rule];
}
