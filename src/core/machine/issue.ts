// What the applications issue to a client when a token attached for them authenticates (offline:
// the next OTP values, hashed with the PIN; reference 6.6), and their refills: the application
// makes the item, core advances the token's counter past what was handed out and stores the
// application's tokeninfo sealed, in one transaction through the token store.
import {
  type Issue,
  type IssuingToken,
  type MachineApplication,
  machineApplication,
} from '../../applications/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { advanceOtpCounter, findToken, type LoadedToken, tokenState } from '../token/index.ts';
import { listMachineTokens, type MachineTokenRecord } from './attachment-list.ts';
import { hasIssuingAttachment } from './issuing-tokens.ts';

/** The password a token was just used with, split into its PIN and OTP parts. */
export interface PresentedPass {
  pin: string;
  otp: string;
  prependPin: boolean;
}

/**
 * The first attachment of a token per application that issues items (one issue per application).
 * Every successful check asks: a token not attached for such an application is answered from
 * memory (issuing-tokens.ts), without a statement.
 */
async function issuingAttachments(rt: Runtime, t: LoadedToken): Promise<MachineTokenRecord[]> {
  if (!(await hasIssuingAttachment(rt, t.row.id))) return [];
  const serial = t.row.serial;
  const seen = new Set<string>();
  const out: MachineTokenRecord[] = [];
  for (const r of await listMachineTokens(rt, { serial, sortby: 'id' })) {
    if (seen.has(r.application) || !machineApplication(r.application).issue) continue;
    seen.add(r.application);
    out.push(r);
  }
  return out;
}

function issuingToken(
  rt: Runtime,
  t: LoadedToken,
  r: MachineTokenRecord,
  username: string | undefined,
  pass: PresentedPass,
): IssuingToken {
  const state = tokenState(rt, t);
  return {
    serial: t.row.serial,
    type: t.type.type,
    active: Boolean(t.row.active) && !t.row.revoked,
    info: t.info,
    username,
    options: r.options,
    counter: Number(t.row.count),
    counterValues: (from, n) => t.type.counterValues(state, from, n),
    hmacResponse: (challenge) => t.type.hmacResponse(state, challenge),
    ...pass,
  };
}

/** Stores what an application issued; false when the token's counter moved meanwhile. */
function store(rt: Runtime, t: LoadedToken, issue: Issue): Promise<boolean> {
  return advanceOtpCounter(rt, t, issue.counter, issue.secretInfo);
}

/**
 * What a successful authentication of a token issues, by application: `{offline: [item]}`, or
 * undefined when the token is attached for no application that issues anything. A token whose
 * counter another request moved while the values were hashed gets none this time.
 */
export async function issueAuthItems(
  rt: Runtime,
  checked: LoadedToken,
  username: string | undefined,
  pass: PresentedPass,
): Promise<Record<string, Record<string, unknown>[]> | undefined> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const r of await issuingAttachments(rt, checked)) {
    // Loaded again: the check moved its counter.
    const t = await findToken(rt, checked.row.serial);
    const app = machineApplication(r.application);
    const issue = t && (await app.issue?.(issuingToken(rt, t, r, username, pass)));
    if (!issue || !(await store(rt, t, issue))) continue;
    out[app.name] = [{ ...issue.item, serial: t.row.serial }];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * A refill for an application (POST /validate/offlinerefill) of a token the caller found usable
 * with the PIN given: the application checks the refill token and the OTP, and gives new items.
 */
export async function refillAuthItems(
  rt: Runtime,
  application: string,
  t: LoadedToken,
  refillToken: string,
  pass: PresentedPass,
): Promise<Record<string, Record<string, unknown>[]>> {
  const app: MachineApplication = machineApplication(application);
  const r = (await issuingAttachments(rt, t)).find((a) => a.application === app.name);
  if (!r || !app.refill) {
    throw new ParameterError(`Token is not an ${app.name} token or refill token is incorrect`);
  }
  const issue = await app.refill(issuingToken(rt, t, r, undefined, pass), refillToken);
  if (!(await store(rt, t, issue))) {
    throw new ParameterError('The token was used by another request meanwhile: try again.');
  }
  return { [app.name]: [{ ...issue.item, serial: t.row.serial }] };
}
