// The radius token type (reference 3.1): enrollment (radius.identifier required, the legacy
// settings refused), where the PIN is checked, and checkUpstream sending the value to FreeRADIUS
// through the real RADIUS client: the user name (radius.user, else the owner), Access-Accept,
// Access-Reject, an Access-Challenge as a challenge whose data is the State, and its answer.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { sendAccessRequest } from '../../src/gateways/radius/index.ts';
import { RadiusType } from '../../src/tokens/radius.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import type { EnrollRequest, TokenState, UpstreamCheck } from '../../src/tokens/token-type.ts';
import {
  RADIUS_ALICE_PASSWORD,
  RADIUS_CHAL_FIRST,
  RADIUS_CHAL_MESSAGE,
  RADIUS_CHAL_SECOND,
  RADIUS_CHAL_STATE,
  RADIUS_SECRET,
  useFreeRadius,
} from '../helpers/freeradius.ts';

const radius = new RadiusType();

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'PIRA0001', params, settings: { get: () => undefined }, now: new Date() };
}

function stateOf(info: Record<string, string>): TokenState {
  return {
    serial: 'PIRA0001',
    type: 'radius',
    otplen: 6,
    count: 0,
    countWindow: 10,
    syncWindow: 1000,
    info,
    key: () => Buffer.alloc(0),
  };
}

describe('RadiusType', () => {
  it('is registered, forwards to RADIUS server definitions and never matches an OTP itself', () => {
    expect(findTokenType('RADIUS')).toBeInstanceOf(RadiusType);
    expect(radius.prefix).toBe('PIRA');
    expect(radius.upstream).toBe('radius');
    expect(radius.enrollAction).toBe('enrollRADIUS');
    expect(radius.checkOtp()).toBeNull();
  });

  it('enrolls with radius.identifier, radius.user and radius.local_checkpin; refuses the legacy settings', async () => {
    expect(await radius.enroll(request({ 'radius.identifier': 'fr' }))).toEqual({
      otplen: 6,
      info: { 'radius.identifier': 'fr', 'radius.local_checkpin': '0', tokenkind: 'virtual' },
      detail: {},
    });
    const e = await radius.enroll(
      request({
        'radius.identifier': 'fr',
        'radius.user': 'bob',
        'radius.local_checkpin': 'True',
        otplen: '8',
      }),
    );
    expect(e).toMatchObject({ otplen: 8, info: { 'radius.user': 'bob', 'radius.local_checkpin': '1' } });
    const missing = await radius.enroll(request({})).catch((x) => x);
    expect(missing).toBeInstanceOf(ParameterError);
    expect(missing.wireMessage()).toBe("ERR905: Missing parameter: 'radius.identifier'");
    const legacy = await radius
      .enroll(request({ 'radius.server': '10.0.0.1', 'radius.secret': 's' }))
      .catch((x) => x);
    expect(legacy.wireMessage()).toMatch(/radius\.server and radius\.secret are not supported/);
  });

  it('checks the PIN locally only with radius.local_checkpin', () => {
    expect(radius.pinCheckedLocally(stateOf({ 'radius.local_checkpin': '1' }))).toBe(true);
    expect(radius.pinCheckedLocally(stateOf({ 'radius.local_checkpin': '0' }))).toBe(false);
    expect(radius.pinCheckedLocally(stateOf({}))).toBe(false);
  });
});

describe('RadiusType.checkUpstream against FreeRADIUS', () => {
  const fr = useFreeRadius();
  const asked: string[] = [];

  /** What core gives the type: the real client to FreeRADIUS for the definition `fr`. */
  const check = (password: string, owner?: string, challengeData?: string): UpstreamCheck => ({
    password,
    owner,
    challengeData,
    ask: (r) => {
      asked.push(`${r.server}:${r.user}`);
      return sendAccessRequest(
        { server: '127.0.0.1', port: fr.port, secret: RADIUS_SECRET, timeout: 2, retries: 1 },
        r,
      );
    },
  });

  it("sends the owner's login, or radius.user, and turns the answer into the token's", async () => {
    const token = stateOf({ 'radius.identifier': 'fr' });
    expect(await radius.checkUpstream(token, check(RADIUS_ALICE_PASSWORD, 'alice'))).toEqual({
      kind: 'accept',
    });
    expect(await radius.checkUpstream(token, check('wrong', 'alice'))).toEqual({ kind: 'reject' });
    const asAlice = stateOf({ 'radius.identifier': 'fr', 'radius.user': 'alice' });
    expect(await radius.checkUpstream(asAlice, check(RADIUS_ALICE_PASSWORD, 'bob'))).toEqual({
      kind: 'accept',
    });
    expect(asked).toEqual(['fr:alice', 'fr:alice', 'fr:alice']);
    // Without radius.user and owner there is no one to ask for.
    expect(await radius.checkUpstream(token, check(RADIUS_ALICE_PASSWORD))).toEqual({
      kind: 'reject',
      reason: 'the token has no radius.user and no owner',
    });
  });

  it('passes an Access-Challenge on with its State as the challenge data, and answers it with that State', async () => {
    const token = stateOf({ 'radius.identifier': 'fr' });
    const first = await radius.checkUpstream(token, check(RADIUS_CHAL_FIRST, 'chal'));
    expect(first).toEqual({
      kind: 'challenge',
      challenge: { data: RADIUS_CHAL_STATE, message: RADIUS_CHAL_MESSAGE },
    });
    expect(await radius.checkUpstream(token, check(RADIUS_CHAL_SECOND, 'chal', RADIUS_CHAL_STATE))).toEqual({
      kind: 'accept',
    });
  });
});
