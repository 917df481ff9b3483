// The challenges of an answer (reference 4.3): creation for a list of tokens, the detail with its
// lists and legacy top-level fields, and the authentication policies that shape it
// (challenge_text, preferred_client_mode, challenge_text_header/footer).
import type { ChallengeSpec, TokenType } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { type LoadedToken, tokenState } from '../token/index.ts';
import { createChallenge, newTransactionId } from './challenge-store.ts';
import type { Detail, RequestPolicies } from './policies.ts';

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

/**
 * Creates one challenge per token, all in one new transaction (or the one `next` continues).
 * `asked` holds, by serial, the challenges upstream servers asked (radius), taken as they are.
 */
export async function createChallenges(
  rt: Runtime,
  tokens: readonly LoadedToken[],
  pol: RequestPolicies,
  next?: NextRound,
  asked?: ReadonlyMap<string, ChallengeSpec>,
): Promise<ChallengeEntry[]> {
  const tid = next?.transactionId ?? newTransactionId(rt.random);
  const out: ChallengeEntry[] = [];
  for (const t of tokens) {
    // The type may ask something of its own (a question, positions of a secret) and remember it.
    const spec =
      asked?.get(t.row.serial) ??
      t.type.challenge(tokenState(rt, t), {
        policy: (a) => pol.value('authentication', a, true),
        previous: next?.previous,
        random: rt.random,
      });
    await createChallenge(rt, {
      transactionId: tid,
      serial: t.row.serial,
      type: t.type.type,
      data: spec.data,
    });
    out.push({
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

/** The detail of a challenge answer: lists, the joined message, the last challenge at the top level. */
export function challengeDetail(entries: readonly ChallengeEntry[]): Detail {
  const messages = entries.map((e) => e.message);
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
