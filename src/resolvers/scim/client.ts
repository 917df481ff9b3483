// HTTP to a SCIM service: the access token and the GET requests of the Users endpoint.
//
// Access token: OAuth 2.0 client-credentials grant (RFC 6749 §4.4), POST with HTTP Basic client
// authentication. The token is shared by all lookups of the store, renewed shortly before it
// expires (expires_in minus a tenth, at most 60 s) and once more when the resource server answers
// 401. One TIMEOUT covers a whole request, the token included.
import { AuthsrvError, ResolverError } from '../../errors.ts';
import type { StoreEnvironment } from '../user-store.ts';
import type { ScimConfig } from './config.ts';
import { attribute, isObject } from './path.ts';

export interface Answer {
  status: number;
  text: string;
}

/** Resolves like `promise`, or rejects with the signal's reason when it fires first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function originOf(url: string): string {
  return new URL(url).origin;
}

export function pathOf(url: string): string {
  return new URL(url).pathname;
}

/** A failed fetch as a clear ResolverError: timeout, refused connection, DNS, TLS … */
function transportError(e: unknown, url: string, timeoutMs: number): AuthsrvError {
  if (e instanceof AuthsrvError) return e;
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return new ResolverError(`no answer from ${originOf(url)} within ${timeoutMs / 1000} s`);
  }
  const reason = err?.cause?.message ?? err?.cause?.code ?? err?.message ?? String(e);
  return new ResolverError(`cannot reach ${originOf(url)}: ${reason}`);
}

export function parseJson(answer: Answer, url: string): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new ResolverError(`the answer of ${originOf(url)}${pathOf(url)} is not JSON`);
  }
}

/** The error text a SCIM (detail) or OAuth (error, error_description) error body carries. */
function errorDetail(answer: Answer): string {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return '';
  }
  const parts = ['error', 'error_description', 'scimType', 'detail']
    .map((k) => attribute(body, k))
    .filter((v): v is string => typeof v === 'string' && v !== '');
  return parts.length ? ` (${parts.join(': ')})` : '';
}

function formEncode(s: string): string {
  return new URLSearchParams([['', s]]).toString().slice(1);
}

/** One page of a ListResponse. */
export interface Page {
  resources: unknown[];
  total: number | undefined;
}

export class ScimClient {
  private readonly cfg: ScimConfig;
  private readonly env: StoreEnvironment;
  private token: { value: string; refreshAt: number } | undefined;
  private pendingToken: Promise<string> | undefined;

  constructor(cfg: ScimConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.env = env;
  }

  private now(): number {
    return this.env.clock().getTime();
  }

  private async send(url: string, init: RequestInit, signal: AbortSignal): Promise<Answer> {
    try {
      const res = await fetch(url, { ...init, signal, redirect: 'manual' });
      return { status: res.status, text: await res.text() };
    } catch (e) {
      throw transportError(e, url, this.cfg.timeoutMs);
    }
  }

  private async fetchToken(): Promise<string> {
    const url = this.cfg.tokenUrl;
    const started = this.now();
    const answer = await this.send(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${formEncode(this.cfg.client)}:${formEncode(this.cfg.secret)}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
      },
      AbortSignal.timeout(this.cfg.timeoutMs),
    );
    if (answer.status !== 200) {
      throw new ResolverError(
        `could not get an access token from ${url}: HTTP ${answer.status}${errorDetail(answer)}`,
      );
    }
    const body = parseJson(answer, url);
    const value = attribute(body, 'access_token');
    if (typeof value !== 'string' || value === '') {
      throw new ResolverError(`the token endpoint ${url} answered without an access_token`);
    }
    const type = attribute(body, 'token_type');
    if (typeof type === 'string' && type.toLowerCase() !== 'bearer') {
      throw new ResolverError(`the token endpoint ${url} issued a '${type}' token, not a Bearer token`);
    }
    const expiresIn = Number(attribute(body, 'expires_in'));
    const refreshAt =
      Number.isFinite(expiresIn) && expiresIn > 0
        ? started + (expiresIn - Math.min(60, expiresIn / 10)) * 1000
        : Number.POSITIVE_INFINITY; // no lifetime given: used until the resource server answers 401
    this.token = { value, refreshAt };
    this.env.log.debug({ tokenUrl: url, expiresIn }, 'SCIM access token obtained');
    return value;
  }

  /** The cached token, or one fresh token request shared by every concurrent caller. */
  private accessToken(signal: AbortSignal): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    if (this.pendingToken === undefined) {
      const pending = this.fetchToken().finally(() => {
        this.pendingToken = undefined;
      });
      pending.catch(() => {}); // a caller that gave up must not leave the rejection unhandled
      this.pendingToken = pending;
    }
    return untilAborted(this.pendingToken, signal);
  }

  /** GET with the bearer token; a 401 renews the token once. One TIMEOUT covers all of it. */
  async get(url: string): Promise<Answer> {
    const signal = AbortSignal.timeout(this.cfg.timeoutMs);
    try {
      const request = async () => {
        const token = await this.accessToken(signal);
        const headers = {
          authorization: `Bearer ${token}`,
          accept: 'application/scim+json, application/json',
        };
        return { token, answer: await this.send(url, { headers }, signal) };
      };
      let { token, answer } = await request();
      if (answer.status === 401) {
        if (this.token?.value === token) this.token = undefined;
        ({ token, answer } = await request());
        if (answer.status === 401) {
          throw new ResolverError(
            `the SCIM server ${originOf(url)} rejected a fresh access token: HTTP 401${errorDetail(answer)}`,
          );
        }
      }
      return answer;
    } catch (e) {
      throw transportError(e, url, this.cfg.timeoutMs);
    }
  }

  failure(answer: Answer, url: string): ResolverError {
    return new ResolverError(
      `the SCIM server answered HTTP ${answer.status} for GET ${pathOf(url)}${errorDetail(answer)}`,
    );
  }

  async list(filter: string | undefined, startIndex: number, count: number): Promise<Page> {
    const params: [string, string][] = [];
    if (filter !== undefined) params.push(['filter', filter]);
    params.push(['startIndex', String(startIndex)], ['count', String(count)]);
    const url = `${this.cfg.usersUrl}?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
    const answer = await this.get(url);
    if (answer.status !== 200) throw this.failure(answer, url);
    const body = parseJson(answer, url);
    const resources = attribute(body, 'Resources') ?? [];
    if (!isObject(body) || !Array.isArray(resources)) {
      throw new ResolverError(`the answer of GET ${pathOf(url)} is not a SCIM ListResponse`);
    }
    const total = attribute(body, 'totalResults');
    return { resources, total: typeof total === 'number' ? total : undefined };
  }

  forgetToken(): void {
    this.token = undefined;
  }
}
