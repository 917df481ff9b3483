// AuditRotation: the options refused without a limit, and a run deleting rows by age and count
// (the rotation the server's hourly timer does by audit.max_age / audit.max_rows).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordCliAction } from '../../src/core/audit/index.ts';
import { parseOptions, taskModule } from '../../src/task-modules/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../helpers/runtime.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');

describe.each(testDialects())('the AuditRotation task module on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0 });
  });
  afterEach(async () => t.close());

  const rotation = taskModule('AuditRotation');
  const infos = async () =>
    (await t.rt.store.db.selectFrom('audit').select('info').orderBy('id').execute()).map((r) => r.info);

  it('needs max_age or max_rows', () => {
    expect(() => parseOptions(rotation, {})).toThrow('Task module AuditRotation needs max_age or max_rows');
    expect(() => parseOptions(rotation, { max_age: '0' })).toThrow(/needs max_age or max_rows/);
    expect(parseOptions(rotation, { max_age: '3600' })).toEqual({ max_age: 3600 });
  });

  it('deletes rows older than max_age, then the oldest beyond max_rows', async () => {
    await t.rt.store.db.deleteFrom('audit').execute();
    for (const h of [50, 30, 3, 2, 1]) {
      const when = new Date(T0.getTime() - h * 3_600_000);
      t.setNow(when);
      await recordCliAction(t.ctx, { command: 'test', detail: `${h}h` }, when);
    }
    t.setNow(T0);
    const summary = await rotation.run(
      t.rt,
      parseOptions(rotation, { max_age: String(24 * 3600), max_rows: '2' }),
    );
    expect(summary).toEqual({ deletedByAge: 2, deletedByCount: 1 });
    expect(await infos()).toEqual(['2h', '1h']);
  });
});
