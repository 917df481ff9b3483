// triggerchallenge (reference 4.4): challenges for the challenge-capable, usable tokens of a user
// or of one serial, without a PIN; administrators only (the route checks the right).
import type { Context } from '../context.ts';
import { type ResolvedUser, requireUser, splitLogin } from '../directory/index.ts';
import { type LoadedToken, requireToken, tokensOfOwner } from '../token/index.ts';
import { challengeDetail, createChallenges, decorateChallenges } from './challenges.ts';
import { type Detail, RequestPolicies } from './policies.ts';
import { type CheckAudit, checkAudit, checkRequestParams, ownerUser, typeFilter } from './request.ts';
import { unusable } from './usable.ts';

export interface TriggerInput {
  user?: string | undefined;
  realm?: string | undefined;
  serial?: string | undefined;
  type?: string | undefined;
}

export interface TriggerResult {
  value: number;
  detail: Detail;
  audit: CheckAudit;
}

export async function triggerChallenge(ctx: Context, input: TriggerInput): Promise<TriggerResult> {
  checkRequestParams(input);
  const { tokens, user } = await tokensToTrigger(ctx, input);
  const who = { login: user?.login ?? '', realm: user?.realm ?? tokens[0]?.realms[0] ?? '' };
  const pol = await RequestPolicies.of(ctx, { ...who, ...(user ? { user } : {}) }, ctx.caller.client);
  const type = input.serial ? undefined : typeFilter(pol, input.type);
  const fit = tokens.filter(
    (t) =>
      t.type.challengeCapable &&
      Number(t.row.revoked) !== 1 &&
      Number(t.row.locked) !== 1 &&
      !unusable(t, ctx.clock()) &&
      (!type || t.type.type === type),
  );
  const made = await createChallenges(ctx, fit, pol);
  const entries = made.entries;
  const detail: Detail =
    entries.length > 0 || made.failed.length > 0
      ? challengeDetail(made)
      : { messages: [], transaction_ids: [], multi_challenge: [] };
  decorateChallenges(detail, pol);
  const audit = checkAudit(who, user, fit.length === 1 ? fit[0] : undefined, detail);
  return { value: entries.length, detail, audit };
}

/** The token of the serial (and its owner), or the tokens of the user. */
async function tokensToTrigger(
  ctx: Context,
  input: TriggerInput,
): Promise<{ tokens: LoadedToken[]; user: ResolvedUser | undefined }> {
  if (input.serial) {
    const t = await requireToken(ctx, input.serial);
    return { tokens: [t], user: await ownerUser(ctx, t) };
  }
  const { login, realm } = await splitLogin(ctx, input.user!, input.realm);
  const user = await requireUser(ctx, login, realm);
  return { tokens: await tokensOfOwner(ctx, user.resolver, user.userid), user };
}
