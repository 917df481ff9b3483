// Access-Requests to the RADIUS servers of the definitions: the test of POST
// /radiusserver/test_request (a definition given in the request, stored or not) and the
// authentication the radius token type and passthru to RADIUS ask for. A server that cannot be
// reached, answers nothing or with a wrong authenticator is a failure with the reason, never an error.

import { ParameterError } from '../../errors.ts';
import { type RadiusAnswer, sendAccessRequest } from '../../gateways/radius/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { connectionOf, DEFAULTS, findRadiusServer, type RadiusServerInput, secretOf } from './definitions.ts';

export type { RadiusAnswer };

/** What the test request sends: a definition (or changes to a stored one) and the credentials. */
export interface TestRequestInput extends RadiusServerInput {
  identifier?: string | undefined;
  username: string;
  password: string;
}

export interface TestRequestResult {
  /** Whether the server answered Access-Accept. */
  value: boolean;
  /** What happened, in words (the reason of a failure, the server's Reply-Message). */
  description: string;
}

function describe(answer: RadiusAnswer): string {
  const said = (m: string | undefined) => (m ? ` (Reply-Message: ${m})` : '');
  switch (answer.kind) {
    case 'accept':
      return `Access-Accept${said(answer.message)}`;
    case 'reject':
      return `Access-Reject${said(answer.message)}`;
    case 'challenge':
      return `Access-Challenge${said(answer.message)}`;
    case 'failed':
      return answer.reason;
  }
}

/**
 * POST /radiusserver/test_request: one Access-Request with the request's user and password to the
 * definition it gives; with the identifier of a stored one, what it omits (or sends as
 * __CENSORED__) is taken from it, under the secret-reuse rule.
 */
export async function testRadiusRequest(ctx: Context, input: TestRequestInput): Promise<TestRequestResult> {
  if (!input.username) throw ParameterError.missing('username');
  checkLength('username', input.username, LIMITS.name);
  checkLength('password', input.password, LIMITS.password);
  const saved = input.identifier ? await findRadiusServer(ctx, input.identifier) : undefined;
  if (!saved && (input.server === undefined || input.server.trim() === ''))
    throw ParameterError.missing('server');
  const conn = connectionOf(input, saved ?? { server: '', ...DEFAULTS });
  const secret = secretOf(input.secret, saved, conn);
  const answer = await sendAccessRequest(
    { ...conn, secret },
    { user: input.username, password: input.password },
  );
  return { value: answer.kind === 'accept', description: describe(answer) };
}

/** What the radius token type and passthru ask a stored definition. */
export interface UpstreamRequest {
  identifier: string;
  user: string;
  password: string;
  /** The State of the Access-Challenge this request answers. */
  state?: Buffer | undefined;
}

/**
 * An Access-Request to the stored definition `identifier`; an unknown identifier is a failure
 * (the token or policy that names it was left behind when the definition was deleted).
 */
export async function radiusAuthenticate(rt: Runtime, r: UpstreamRequest): Promise<RadiusAnswer> {
  const server = await findRadiusServer(rt, r.identifier);
  if (!server) return { kind: 'failed', reason: `the RADIUS server ${r.identifier} is not defined` };
  const answer = await sendAccessRequest(server, { user: r.user, password: r.password, state: r.state });
  if (answer.kind === 'failed')
    rt.log.warn({ radiusserver: r.identifier }, `RADIUS request failed: ${answer.reason}`);
  return answer;
}
