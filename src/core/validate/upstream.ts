// The upstream servers of forwarding token types (a type's `upstream`): which service sends a
// request to a server definition of each kind, and the check of one token through it. Adding a
// kind (a remote privacyIDEA server) is one line in UPSTREAMS.
import type { UpstreamAnswer, UpstreamRequest, UpstreamResult } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { radiusAuthenticate } from '../radiusserver/index.ts';
import { type LoadedToken, tokenState } from '../token/index.ts';
import { ownerUser } from './request.ts';
import type { Round } from './round.ts';

type Ask = (rt: Runtime, r: UpstreamRequest) => Promise<UpstreamAnswer>;

const UPSTREAMS: Readonly<Record<string, Ask>> = {
  radius: (rt, r) =>
    radiusAuthenticate(rt, { identifier: r.server, user: r.user, password: r.password, state: r.state }),
};

/** Whether the token's values are checked by an upstream server. */
export function forwards(t: LoadedToken): boolean {
  return t.type.upstream !== undefined && t.type.checkUpstream !== undefined;
}

/**
 * The check of `password` for a forwarding token by its upstream server (`challengeData`: the data
 * of the challenge the password answers). A failure to reach the server is a refusal, logged.
 */
export async function upstreamCheck(
  round: Round,
  t: LoadedToken,
  password: string,
  challengeData?: string,
): Promise<UpstreamResult> {
  const { rt } = round;
  const ask = UPSTREAMS[t.type.upstream ?? ''];
  if (!ask || !t.type.checkUpstream)
    return { kind: 'reject', reason: `no upstream service for ${t.type.type}` };
  const owner = round.o.user?.login ?? (await ownerUser(rt, t))?.login;
  const result = await t.type.checkUpstream(tokenState(rt, t), {
    password,
    owner,
    challengeData,
    ask: (r) => ask(rt, r),
  });
  if (result.kind === 'reject' && result.reason)
    rt.log.info({ serial: t.row.serial }, `upstream check refused: ${result.reason}`);
  return result;
}
