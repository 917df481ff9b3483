// A small client of the authsrv REST API for creating fixtures (not for load: that is the driver's).
import { request } from 'node:http';

export interface Envelope {
  result: {
    status: boolean;
    value?: unknown;
    authentication?: string;
    error?: { code: number; message: string };
  };
  detail?: Record<string, unknown> | null;
  signature?: string;
}

export class Api {
  readonly url: string;
  #token: string | undefined;

  constructor(url: string) {
    this.url = url;
  }

  /** Logs in as an administrator; later calls carry the JWT. */
  async login(username: string, password: string): Promise<string> {
    const e = await this.call('POST', '/auth', { username, password });
    const token = (e.result.value as { token?: string } | undefined)?.token;
    if (!token) throw new Error('POST /auth answered no token');
    this.#token = token;
    return token;
  }

  get token(): string {
    if (!this.#token) throw new Error('not logged in');
    return this.#token;
  }

  /** Form-encoded call; throws unless HTTP 200 with result.status true. */
  async call(method: string, path: string, params: Record<string, string> = {}): Promise<Envelope> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.#token) headers.Authorization = this.#token;
    let url = this.url + path;
    let body: string | undefined;
    if (method === 'GET') {
      const q = new URLSearchParams(params).toString();
      if (q) url += `?${q}`;
    } else {
      body = new URLSearchParams(params).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(url, { method, headers, body });
    return this.#check(method, path, res);
  }

  /** Multipart upload of a file (POST /token/load/<name>). */
  async upload(path: string, file: string, fields: Record<string, string>): Promise<Envelope> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([file], { type: 'text/csv' }), 'tokens.csv');
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.#token) headers.Authorization = this.#token;
    // A long upload on its own connection: fetch would reuse a kept-alive one, which the server may
    // close (keepAliveTimeout) just as the upload starts, and a POST is not retried ("fetch failed").
    const encoded = new Response(form);
    headers['Content-Type'] = encoded.headers.get('content-type') ?? '';
    const body = Buffer.from(await encoded.arrayBuffer());
    const res = await new Promise<Response>((resolve, reject) => {
      const req = request(this.url + path, { method: 'POST', headers, agent: false }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (c: Buffer) => chunks.push(c));
        incoming.on('end', () =>
          resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode ?? 0 })),
        );
        incoming.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
    return this.#check('POST', path, res);
  }

  async #check(method: string, path: string, res: Response): Promise<Envelope> {
    const text = await res.text();
    let e: Envelope;
    try {
      e = JSON.parse(text) as Envelope;
    } catch {
      throw new Error(`${method} ${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 300)}`);
    }
    if (res.status !== 200 || !e.result?.status) {
      throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
    }
    return e;
  }
}

/** Runs fn over items with at most `limit` at a time. */
export async function inParallel<T>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
