import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  type Backoff,
  backoffOf,
  type FailureCount,
  forgotten,
  retryAfter,
  waitAfter,
} from '../../../src/core/throttle/backoff.ts';

const B: Backoff = {
  freeFailures: 3,
  baseDelay: 2,
  maxDelay: 30,
  blockAfter: 10,
  blockDuration: 900,
  resetAfter: 3600,
};
const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('waitAfter', () => {
  it('is free for the free failures, then doubles from the base delay up to the cap, then blocks', () => {
    const waits = Array.from({ length: 12 }, (_, i) => waitAfter(i + 1, B));
    expect(waits).toEqual([0, 0, 0, 2, 4, 8, 16, 30, 30, 900, 900, 900]);
  });

  it('stays at the cap for any number of failures below the block', () => {
    expect(waitAfter(5000, { ...B, blockAfter: 1_000_000 })).toBe(30);
  });

  it('blocks at once when block_after is within the free failures', () => {
    expect(waitAfter(1, { ...B, freeFailures: 5, blockAfter: 1 })).toBe(900);
  });
});

describe('afterFailure', () => {
  it('counts from one, and on from the previous count', () => {
    const first = afterFailure(undefined, T0, B);
    expect(first).toEqual({ failures: 1, lastFailure: T0, blockedUntil: T0 });
    let c: FailureCount = first;
    for (let i = 1; i <= 4; i++) c = afterFailure(c, at(i), B);
    expect(c).toEqual({ failures: 5, lastFailure: at(4), blockedUntil: at(4 + 4) });
  });

  it('starts again after reset_after without a failure, but not while a block runs', () => {
    const old: FailureCount = { failures: 9, lastFailure: T0, blockedUntil: at(30) };
    expect(afterFailure(old, at(3600), B).failures).toBe(1);
    expect(afterFailure(old, at(3599), B).failures).toBe(10);
    const blocked: FailureCount = { failures: 12, lastFailure: T0, blockedUntil: at(7200) };
    expect(afterFailure(blocked, at(3600), B)).toEqual({
      failures: 13,
      lastFailure: at(3600),
      blockedUntil: at(7200),
    });
  });

  it('never shortens a block already running', () => {
    const blocked: FailureCount = { failures: 2, lastFailure: T0, blockedUntil: at(900) };
    expect(afterFailure(blocked, at(1), B).blockedUntil).toEqual(at(900));
  });
});

describe('forgotten and retryAfter', () => {
  it('forgets a count reset_after after its last failure once no block runs', () => {
    const c: FailureCount = { failures: 4, lastFailure: T0, blockedUntil: at(2) };
    expect(forgotten(c, at(3599), B)).toBe(false);
    expect(forgotten(c, at(3600), B)).toBe(true);
    expect(forgotten({ ...c, blockedUntil: at(4000) }, at(3600), B)).toBe(false);
  });

  it('answers the whole seconds until the latest block ends, 0 when none runs', () => {
    const a: FailureCount = { failures: 4, lastFailure: T0, blockedUntil: at(2) };
    const b: FailureCount = {
      failures: 11,
      lastFailure: T0,
      blockedUntil: new Date(at(900).getTime() - 500),
    };
    expect(retryAfter([a, b], T0)).toBe(900);
    expect(retryAfter([a], at(1.2))).toBe(1);
    expect(retryAfter([a], at(2))).toBe(0);
    expect(retryAfter([], T0)).toBe(0);
  });
});

describe('backoffOf', () => {
  it('gives an address address_factor times the counts, with the same times', () => {
    const config = {
      enabled: true,
      freeFailures: 5,
      baseDelay: 1,
      maxDelay: 60,
      blockAfter: 20,
      blockDuration: 900,
      resetAfter: 43_200,
      addressFactor: 5,
    };
    expect(backoffOf(config, 'account')).toEqual({
      freeFailures: 5,
      baseDelay: 1,
      maxDelay: 60,
      blockAfter: 20,
      blockDuration: 900,
      resetAfter: 43_200,
    });
    expect(backoffOf(config, 'address')).toMatchObject({ freeFailures: 25, blockAfter: 100, maxDelay: 60 });
  });
});
