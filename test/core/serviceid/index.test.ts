// Service IDs through the folder's face: what uses one (serviceIdUsers, the hook machine tokens
// extend), concurrent creation of one name, and a refused deletion that changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deleteServiceId,
  listServiceIds,
  serviceIdUsers,
  setServiceId,
} from '../../../src/core/serviceid/index.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('service IDs on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  it('names the applspec tokens whose service_id is the service ID, case-insensitively', async () => {
    await initToken(t.ctx, { type: 'applspec', serial: 'ASP1', otpkey: 'pw1', service_id: 'Mail' });
    await initToken(t.ctx, { type: 'applspec', serial: 'ASP2', otpkey: 'pw2', service_id: 'mail' });
    await initToken(t.ctx, { type: 'applspec', serial: 'ASP3', otpkey: 'pw3', service_id: 'vpn' });
    const users = (name: string) => t.rt.store.db.transaction().execute((trx) => serviceIdUsers(trx, name));
    expect(await users('mail')).toEqual(['token(s) ASP1, ASP2']);
    expect(await users('VPN')).toEqual(['token(s) ASP3']);
    expect(await users('ssh')).toEqual([]);
    await setServiceId(t.ctx, 'vpn', 'VPN');
    await expect(deleteServiceId(t.ctx, 'vpn')).rejects.toThrow(
      'The service ID vpn is still used by token(s) ASP3.',
    );
    expect(await listServiceIds(t.rt)).toEqual({ vpn: { description: 'VPN', id: expect.any(Number) } });
  });

  it('creates one service ID when the same name is created concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => setServiceId(t.ctx, 'race', `try ${i}`)),
    );
    expect(results).toEqual([1, 1, 1, 1, 1]);
    const rows = await t.rt.store.db.selectFrom('serviceid').selectAll().where('name', '=', 'race').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.description).toMatch(/^try \d$/);
  });
});
