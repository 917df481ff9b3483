// Runs a few steps of the HTTP pipeline (src/http/middleware/) on one real request, without the
// rest of the app: the state they start from is given, the state they leave is returned.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Params } from '../../src/http/params.ts';
import type { RequestState } from '../../src/http/state.ts';

export interface StepRequest {
  method?: string;
  /** Path and query string. */
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** What the earlier steps would have left in koa.state. */
  state?: Partial<RequestState>;
  /** Path variables, as the router sets them. */
  pathParams?: Record<string, string>;
  /** Aborts the request: a client that goes away. */
  signal?: AbortSignal;
}

export interface StepResult {
  status: number;
  headers: Headers;
  text: string;
  state: RequestState;
}

/** A request state as startRequest leaves it. */
export function startedState(extra: Partial<RequestState> = {}): Partial<RequestState> {
  return {
    startedAt: new Date('2026-03-01T12:00:00.000Z'),
    client: '192.0.2.1',
    userAgent: undefined,
    params: new Params({}),
    ...extra,
  };
}

export async function runSteps(steps: Koa.Middleware[], request: StepRequest = {}): Promise<StepResult> {
  const app = new Koa();
  let state: RequestState | undefined;
  app.use(async (koa, next) => {
    Object.assign(koa.state, request.state ?? {});
    if (request.pathParams) koa.params = request.pathParams;
    state = koa.state as RequestState;
    await next();
  });
  for (const step of steps) app.use(step);
  const server = createServer(app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${request.path ?? '/'}`, {
      method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, state: state! };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }
}

/** A logger that keeps what it is given, for steps that log instead of answering. */
export function recordingLog() {
  const lines: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, fields, message });
    };
  return { lines, log: { error: at('error'), warn: at('warn'), info: at('info') } };
}

export interface StepOutcome {
  /** What the step threw, if anything. */
  thrown?: unknown;
  /** Whether the step let the next one run. */
  nextRan: boolean;
}

/** `step` between a catcher of what it throws and a stand-in for the steps after it. */
export function aroundStep(step: Koa.Middleware): { seen: StepOutcome; steps: Koa.Middleware[] } {
  const seen: StepOutcome = { nextRan: false };
  const catcher: Koa.Middleware = async (koa, next) => {
    try {
      await next();
    } catch (e) {
      seen.thrown = e;
      koa.status = 204;
    }
  };
  const after: Koa.Middleware = async (koa) => {
    seen.nextRan = true;
    koa.status = 204;
  };
  return { seen, steps: [catcher, step, after] };
}
