// check_token_list (reference 4.2.2): which of the candidate tokens a pass authenticates, asks a
// challenge of, or answers a challenge of, with the side effects on counters and the exact
// messages. Each token gets one outcome (token-outcome.ts); the valid tokens' values are then
// consumed; the highest rung reached (precedence.ts) decides, and its verdict (verdicts.ts) gives
// the answer. The OTP itself is checked by the token type: search for `checkOtp`.
import type { Runtime } from '../context.ts';
import { consumeOtp, type LoadedToken } from '../token/index.ts';
import { succeeded } from './counting.ts';
import { decidingVerdict, groupOf, type Outcome, type Settled } from './precedence.ts';
import { type ListOptions, type ListResult, type Round, startRound } from './round.ts';
import { outcomeOf } from './token-outcome.ts';
import { decide } from './verdicts.ts';

export async function checkTokenList(
  rt: Runtime,
  candidates: readonly LoadedToken[],
  o: ListOptions,
): Promise<ListResult> {
  const round = await startRound(rt, candidates, o);
  const outcomes: Outcome[] = [];
  for (const t of round.tokens) outcomes.push(await outcomeOf(round, t));
  const settled = await consumeValid(round, outcomes);
  const verdict = decidingVerdict(settled);
  if (verdict === undefined)
    return { value: false, detail: { message: 'No suitable token found for authentication.' } };
  return decide(verdict, groupOf(settled, verdict), round);
}

/**
 * Consumes the value of every valid token, in order: the compare-and-set decides which of
 * concurrent requests carrying one OTP is the one. A token whose value another request took counts
 * as PIN-matching, its value spent (a replay); one whose last count under its limit a burst took, as unusable. The settled
 * ones follow the other outcomes, so that their reasons come last in a message.
 */
async function consumeValid(round: Round, outcomes: readonly Outcome[]): Promise<Settled[]> {
  const settled = outcomes.filter((x): x is Settled => x.kind !== 'valid');
  for (const x of outcomes) {
    if (x.kind === 'valid') settled.push(await consumed(round, x));
  }
  return settled;
}

async function consumed(round: Round, { token, use }: Extract<Outcome, { kind: 'valid' }>): Promise<Settled> {
  if (!(await consumeOtp(round.rt, token, use.newCount, use.newKey)))
    return { kind: 'pinMatching', token, otp: '', spent: true };
  const refused = await succeeded(round.rt, token, use.info, round.noCounter);
  return refused ? { kind: 'unusable', token, reason: refused } : { kind: 'accepted', token };
}
