// First step of every request: the headers every answer carries, whatever it is (an envelope, an
// error, a download, a 404, a 405). Nothing authsrv serves may be sniffed into another type,
// cached, framed or run as a page (the API serves no HTML, so the strictest policy fits it; the
// self-service page's three files replace it with their own, src/http/selfservice/serve.ts), no
// referrer leaves with a link, and a server that speaks TLS itself tells browsers to keep to it.
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';

/** HSTS: one year, this host only (a site's other hosts are not authsrv's to decide). */
const HSTS = 'max-age=31536000';

/** The headers of every answer; Strict-Transport-Security only when the server speaks TLS. */
export function securityHeaders(tls: boolean): Readonly<Record<string, string>> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    // API answers hold tokens, OTP values and secrets: never stored (privacyIDEA says no-cache).
    'Cache-Control': 'no-store',
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
    ...(tls ? { 'Strict-Transport-Security': HSTS } : {}),
  };
}

/** Whether the server itself speaks TLS (src/http/server.ts listens with HTTPS then). */
export function servesTls(config: Runtime['config']): boolean {
  return config.http.tlsCert !== '';
}

export function setSecurityHeaders(rt: Pick<Runtime, 'config'>): Koa.Middleware {
  const headers = securityHeaders(servesTls(rt.config));
  return async (koa, next) => {
    koa.set(headers);
    try {
      await next();
    } catch (e) {
      // Koa's last-resort answer removes every header, then sets the error's own `headers`.
      if (e !== null && typeof e === 'object') {
        const own = (e as { headers?: Record<string, string> }).headers;
        Object.assign(e, { headers: { ...own, ...headers } });
      }
      throw e;
    }
  };
}
