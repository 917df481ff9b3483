import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.ts';
import type { Runtime } from '../../src/core/context.ts';
import {
  refuseLockedKeyForWorkers,
  restartBackoff,
  servingRole,
  workerCount,
} from '../../src/http/cluster.ts';

describe('the cluster of server processes', () => {
  afterEach(() => {
    delete process.env.NODE_AUTHSRV_WORKER;
  });

  it('counts http.workers = 0 as one process per CPU core', () => {
    expect(workerCount(3)).toBe(3);
    expect(workerCount(0)).toBeGreaterThanOrEqual(1);
  });

  it('serves alone with one process and as the primary with more; the worker mark needs a cluster worker', () => {
    expect(servingRole(1)).toBe('single');
    expect(servingRole(2)).toBe('primary');
    process.env.NODE_AUTHSRV_WORKER = '1';
    expect(servingRole(2)).toBe('primary');
  });

  it('refuses several workers while the key is locked', () => {
    const rt = (ready: boolean) => ({ hsm: { isReady: () => ready } }) as unknown as Runtime;
    expect(() => refuseLockedKeyForWorkers(rt(false), 2)).toThrow(ConfigError);
    expect(() => refuseLockedKeyForWorkers(rt(false), 1)).not.toThrow();
    expect(() => refuseLockedKeyForWorkers(rt(true), 4)).not.toThrow();
  });

  it('doubles the restart delay while workers die young, up to 30 s, and starts over after a stable one', () => {
    const delays: number[] = [];
    let deaths = 0;
    for (let i = 0; i < 8; i++) {
      const next = restartBackoff(deaths, 1_000);
      deaths = next.quickDeaths;
      delays.push(next.delay);
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(restartBackoff(deaths, 60_000)).toEqual({ quickDeaths: 1, delay: 500 });
  });
});
