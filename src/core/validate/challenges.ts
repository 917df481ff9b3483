// The challenges of an answer (reference 4.3): creation for a list of tokens, the detail with its
// lists and legacy top-level fields, and the authentication policies that shape it
// (challenge_text, preferred_client_mode, challenge_text_header/footer).
import { MessageNotSentError } from '../../errors.ts';
import {
  ChallengeDeliveryError,
  type ChallengeSpec,
  type TokenType,
  type TypeSettings,
} from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { consumeOtp, type LoadedToken, outboxOf, tokenState, typeSettings } from '../token/index.ts';
import { createChallenge, newTransactionId } from './challenge-store.ts';
import type { Detail, RequestPolicies } from './policies.ts';
import { ownerUser } from './request.ts';

export interface ChallengeEntry {
  serial: string;
  transaction_id: string;
  type: string;
  client_mode: string;
  message: string;
  /** Type-specific keys (indexedsecret's attributes, …). */
  [extra: string]: unknown;
}

function challengeText(pol: RequestPolicies, type: TokenType): string {
  const text = pol.value('authentication', 'challenge_text', true);
  return text !== undefined ? text.replace(/\\,/g, ',') : type.challengeMessage;
}

/** A further round of a transaction (4eyes): its id and what the previous round kept. */
export interface NextRound {
  transactionId?: string | undefined;
  previous: string;
}

/** What a request asks of its challenges besides the tokens and policies. */
export interface ChallengeRequest {
  /** The further round of a transaction (4eyes). */
  next?: NextRound | undefined;
  /** `exception=1`: a message that cannot be sent fails the request with HTTP 500. */
  exception?: boolean | undefined;
  /** By serial, the challenges upstream servers asked (radius), taken as they are. */
  asked?: ReadonlyMap<string, ChallengeSpec> | undefined;
}

/** The challenges made, and the messages of the tokens whose challenge could not be delivered. */
export interface Challenges {
  entries: ChallengeEntry[];
  failed: string[];
}

/** The owner's attributes as a type reads them: text values, the first of a list. */
async function ownerAttributes(rt: Runtime, t: LoadedToken): Promise<Record<string, string> | undefined> {
  const user = await ownerUser(rt, t);
  if (!user) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(user.info)) {
    const text = Array.isArray(v) ? v[0] : v;
    if (typeof text === 'string') out[k] = text;
  }
  return { ...out, username: user.login, realm: user.realm, resolver: user.resolver };
}

/**
 * The type's part of one token's challenge, delivered (e-mail, SMS) when the type sends one; the
 * message for the client when the delivery failed and the request goes on without this challenge.
 */
async function deliveredSpec(
  rt: Runtime,
  t: LoadedToken,
  pol: RequestPolicies,
  settings: TypeSettings,
  req: ChallengeRequest,
): Promise<ChallengeSpec | string> {
  const asked = req.asked?.get(t.row.serial);
  if (asked) return asked;
  const state = tokenState(rt, t);
  const opts = {
    policy: (a: string) => pol.value('authentication', a, true),
    previous: req.next?.previous,
    random: rt.random,
    settings,
    owner: () => ownerAttributes(rt, t),
    outbox: outboxOf(rt),
  };
  // The type may ask something of its own (a question, positions of a secret) and remember it.
  const spec = t.type.challenge(state, opts);
  try {
    await t.type.deliverChallenge(state, spec, opts);
  } catch (e) {
    if (!(e instanceof ChallengeDeliveryError)) throw e;
    rt.log.warn({ serial: t.row.serial, reason: e.reason }, e.message);
    if (req.exception) throw new MessageNotSentError(e.message);
    return e.message;
  }
  // The value sent is spent: a newer challenge voids the older ones (reference 4.3).
  if (spec.newCount !== undefined) await consumeOtp(rt, t, spec.newCount, undefined, false);
  return spec;
}

/**
 * Creates one challenge per token, all in one new transaction (or the one `req.next` continues).
 * A token whose challenge could not be delivered gets none; its message says so.
 */
export async function createChallenges(
  rt: Runtime,
  tokens: readonly LoadedToken[],
  pol: RequestPolicies,
  req: ChallengeRequest = {},
): Promise<Challenges> {
  const tid = req.next?.transactionId ?? newTransactionId(rt.random);
  const settings = await typeSettings(rt);
  const out: Challenges = { entries: [], failed: [] };
  for (const t of tokens) {
    const spec = await deliveredSpec(rt, t, pol, settings, req);
    if (typeof spec === 'string') {
      out.failed.push(spec);
      continue;
    }
    await createChallenge(rt, {
      transactionId: tid,
      serial: t.row.serial,
      type: t.type.type,
      data: spec.data,
      validity: spec.validity,
    });
    out.entries.push({
      serial: t.row.serial,
      transaction_id: tid,
      type: t.type.type,
      client_mode: t.type.clientMode,
      message: spec.message ?? challengeText(pol, t.type),
      ...spec.extra,
    });
  }
  return out;
}

/**
 * The detail of a challenge answer: lists, the joined message, the last challenge at the top
 * level. The messages of undelivered challenges are among the messages (privacyIDEA's).
 */
export function challengeDetail({ entries, failed }: Challenges): Detail {
  const messages = [...entries.map((e) => e.message), ...failed];
  const last = entries.at(-1);
  return {
    ...(last ? { serial: last.serial, type: last.type, client_mode: last.client_mode } : {}),
    message: [...new Set(messages)].join(', '),
    messages,
    transaction_id: last?.transaction_id,
    transaction_ids: entries.map((e) => e.transaction_id),
    multi_challenge: entries,
  };
}

/** privacyIDEA 3.13's order when no preferred_client_mode policy is set. */
const DEFAULT_CLIENT_MODES = ['interactive', 'webauthn', 'poll', 'u2f'];

/**
 * The post-policies of an answer with challenges (reference 4.2.3 #6, #7):
 * detail.preferred_client_mode, and challenge_text_header/footer around the messages. A detail
 * without multi_challenge is left alone.
 */
export function decorateChallenges(detail: Detail | undefined, pol: RequestPolicies): void {
  const multi = detail?.multi_challenge;
  if (!detail || !Array.isArray(multi) || multi.length === 0) return;
  const modes = new Set(multi.map((c) => (c as ChallengeEntry).client_mode));
  const configured = pol.values('authentication', 'preferred_client_mode', true)[0];
  const order = configured ? configured.split(/\s+/).filter(Boolean) : DEFAULT_CLIENT_MODES;
  detail.preferred_client_mode = order.find((m) => modes.has(m)) ?? 'interactive';

  // privacyIDEA applies the footer only together with a header.
  const header = pol.value('authentication', 'challenge_text_header', true);
  if (header === undefined) return;
  const footer = pol.value('authentication', 'challenge_text_footer', true) ?? '';
  const messages = [...new Set((detail.messages as string[] | undefined) ?? [])].sort();
  let message = header;
  if (['<ol>', '<ul>'].includes(header.slice(-4).toLowerCase())) {
    for (const m of messages) message += `<li>${m}</li>\n`;
  } else message += `\n${messages.join(', ')}\n`;
  detail.message = message + footer;
}
