// The audit rotation a server runs (src/core/audit/rotation.ts): by audit.max_rows and
// audit.max_age at every turn until stopped; nothing without either. And the one a command runs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  newAuditEntry,
  rotateAuditNow,
  startAuditRotation,
  writeAudit,
} from '../../../src/core/audit/index.ts';
import { ParameterError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('audit rotation service on %s', (dialect) => {
  let t: TestRuntime | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await t?.close();
    t = undefined;
  });

  async function write(n: number) {
    for (let i = 0; i < n; i++) await writeAudit(t!.rt, newAuditEntry(`GET /${i}`, t!.rt.clock()));
  }
  const count = async () =>
    Number(
      (
        await t!.rt.store.db
          .selectFrom('audit')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Moves the (fake) interval timers on; the rotation a turn starts runs on real time. */
  const turn = (ms: number) => vi.advanceTimersByTimeAsync(ms);

  it('keeps the newest audit.max_rows rows at every turn, and nothing more once stopped', async () => {
    t = await openTestRuntime(dialect, { config: { 'audit.max_rows': '2' } });
    await write(5);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const rotation = startAuditRotation(t.rt, 1000);
    expect(await count()).toBe(5);
    await turn(1000);
    await vi.waitFor(async () => expect(await count()).toBe(2));
    rotation.stop();
    expect(vi.getTimerCount()).toBe(0);
    await write(3);
    await turn(5000);
    await new Promise((r) => setTimeout(r, 50));
    expect(await count()).toBe(5);
  });

  it('deletes rows older than audit.max_age', async () => {
    t = await openTestRuntime(dialect, { config: { 'audit.max_age': '1h' } });
    await write(2);
    t.setNow(new Date('2026-03-01T14:00:00.000Z'));
    await write(1);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const rotation = startAuditRotation(t.rt, 1000);
    await turn(1000);
    await vi.waitFor(async () => expect(await count()).toBe(1));
    rotation.stop();
  });

  it('runs nothing without a limit', async () => {
    t = await openTestRuntime(dialect);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const rotation = startAuditRotation(t.rt, 1000);
    expect(vi.getTimerCount()).toBe(0);
    rotation.stop();
  });

  it('rotates now by the limits given, the others from the configuration, with its audit row', async () => {
    t = await openTestRuntime(dialect, { config: { 'audit.max_age': '1h' } });
    await write(4);
    expect(await rotateAuditNow(t.ctx, { maxRows: 2 })).toEqual({ deletedByAge: 0, deletedByCount: 2 });
    const rows = await t.rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.at(-1)).toMatchObject({
      action: 'CLI audit rotate',
      success: 1,
      info: '{"maxAgeSeconds":3600,"maxRows":2}',
    });
  });

  it('refuses to rotate now without any limit, and writes no row', async () => {
    t = await openTestRuntime(dialect);
    await expect(rotateAuditNow(t.ctx, {})).rejects.toThrow(ParameterError);
    expect(await count()).toBe(0);
  });
});
