// Every JSON answer: privacyIDEA's envelope (reference 1.1, 1.2), serialised like Python's
// json.dumps(sort_keys=True) and, when enabled, signed with the server's RSA key.

import { answerOf } from '../core/validate/index.ts';
import { WORKER_ID } from '../core/worker-id.ts';
import { pythonJsonDumps, pythonJsonMembers, pythonJsonObject, type Signer } from '../crypto/index.ts';
import { asAuthsrvError } from '../errors.ts';
import { API_LEVEL, VERSION } from '../version.ts';
import { applyResponseEdits, type ResponseEdit } from './response-edits.ts';

export interface Reply {
  value: unknown;
  /** 2 for /validate/* and /auth answers; they also carry result.authentication (core's answerOf). */
  rid?: 1 | 2;
  detail?: Record<string, unknown> | undefined;
  /** Members beside `result` (privacyIDEA's `auth_items` of /validate/check and offlinerefill). */
  members?: Record<string, unknown> | undefined;
  /** Changes event handlers (ResponseMangler) made to the answer, applied to the envelope. */
  edits?: ResponseEdit[] | undefined;
}

export const VERSION_TEXT = `privacyIDEA ${API_LEVEL} (authsrv ${VERSION})`;

export function successEnvelope(reply: Reply, now: Date): Record<string, unknown> {
  const rid = reply.rid ?? 1;
  const result: Record<string, unknown> = { status: true, value: reply.value };
  if (rid === 2) result.authentication = answerOf(reply);
  const env: Record<string, unknown> = {
    ...reply.members,
    id: rid,
    jsonrpc: '2.0',
    result,
    version: VERSION_TEXT,
    versionnumber: API_LEVEL,
    time: now.getTime() / 1000,
  };
  if (reply.detail && Object.keys(reply.detail).length > 0)
    env.detail = { ...reply.detail, threadid: WORKER_ID };
  if (reply.edits) applyResponseEdits(env, reply.edits);
  return env;
}

export const INTERNAL_ERROR_TEXT =
  '500 Internal Server Error: The server encountered an internal error and was unable to complete your request. ' +
  'Either the server is overloaded or there is an error in the application.';

/**
 * The error envelope: the code, and the message only when the error may show it (else the generic
 * 500 text). A caller who is not an administrator (`outsider`) is not shown a message naming a
 * path of the server, nor its details then (AuthsrvError.outsiderWireMessage).
 */
export function errorEnvelope(err: unknown, now: Date, outsider = false): Record<string, unknown> {
  const failure = asAuthsrvError(err);
  const shown = outsider ? failure.outsiderWireMessage() : failure.wireMessage();
  const message = failure.expose ? shown : INTERNAL_ERROR_TEXT;
  const details = failure.expose && shown === failure.wireMessage() ? failure.details : undefined;
  return {
    id: 1,
    jsonrpc: '2.0',
    detail: details ? { ...details, threadid: WORKER_ID } : null,
    result: { status: false, error: { code: failure.code, message } },
    version: VERSION_TEXT,
    time: now.getTime() / 1000,
  };
}

/** Serialises an envelope; signs it (with the request's nonce echoed) when a signer is given. */
export async function serialise(
  envelope: Record<string, unknown>,
  signer: Signer | undefined,
  nonce: unknown,
): Promise<string> {
  if (!signer) return pythonJsonDumps(envelope);
  // The members are serialised once for the signed text and the answer, which adds the signature.
  const members = pythonJsonMembers(nonce === undefined ? envelope : { ...envelope, nonce });
  const signature = await signer.signAsync(pythonJsonObject(members));
  const unsigned = members.filter(([k]) => k !== 'signature');
  return pythonJsonObject([...unsigned, ['signature', pythonJsonDumps(signature)]]);
}
