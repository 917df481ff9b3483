// The rest of /system: random key material, the security module status, the configuration
// report and the GnuPG public keys.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { listAdmins } from './admin.ts';
import type { Context } from './context.ts';
import { ConfigAdminError, HsmError, ParameterError } from './errors.ts';
import { listConfig } from './system-config.ts';

const MAX_RANDOM_BYTES = 1024;

export function randomKey(lenParam: string | undefined, encodeParam: string | undefined): string {
  const len =
    lenParam === undefined || lenParam === '' ? 20 : /^\d+$/.test(lenParam) ? Number(lenParam) : NaN;
  if (!Number.isInteger(len) || len < 1 || len > MAX_RANDOM_BYTES) {
    throw new ParameterError(`len must be a whole number of bytes from 1 to ${MAX_RANDOM_BYTES}`);
  }
  const encode = encodeParam || 'hex';
  if (encode !== 'hex' && encode !== 'b64')
    throw new ParameterError(`encode must be hex or b64, got '${encode}'`);
  return randomBytes(len).toString(encode === 'hex' ? 'hex' : 'base64');
}

export function hsmStatus(ctx: Context): { is_ready: boolean } {
  return { is_ready: ctx.hsm.isReady() };
}

export function hsmUnlock(ctx: Context, password: string | undefined): { is_ready: boolean } {
  if (ctx.hsm.isReady()) throw new HsmError('HSM already set up.');
  if (!password) throw ParameterError.missing('password');
  ctx.hsm.unlock(password);
  return hsmStatus(ctx);
}

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

const run = promisify(execFile);

export interface GpgKey {
  armor: string;
  fingerprint: string;
}

/** The public keys of the configured GnuPG home, keyed by long key id; empty when none is set. */
export async function gpgKeys(ctx: Context): Promise<Record<string, GpgKey>> {
  const home = ctx.config.security.gnupgHome;
  if (home === '' || !existsSync(home)) return {};
  const gpg = async (...args: string[]) => {
    try {
      return (await run('gpg', ['--homedir', home, '--batch', '--no-tty', ...args], { maxBuffer: 16 << 20 }))
        .stdout;
    } catch (e) {
      throw new ConfigAdminError(
        `Cannot read the GnuPG keys in ${home}: ${(e as Error).message.split('\n')[0]}`,
      );
    }
  };
  const listing = await gpg('--with-colons', '--fingerprint', '--list-keys');
  const out: Record<string, GpgKey> = {};
  let keyid: string | undefined;
  for (const line of listing.split('\n')) {
    const f = line.split(':');
    if (f[0] === 'pub') keyid = f[4];
    else if (f[0] === 'fpr' && keyid && f[9]) {
      out[keyid] = { fingerprint: f[9], armor: await gpg('--armor', '--export', f[9]) };
      keyid = undefined;
    }
  }
  return out;
}
