import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Progress } from '../../../src/cli/progress.ts';
import { newAuditEntry, writeAudit } from '../../../src/core/audit/index.ts';
import type { Runtime } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { cliDialects } from '../../helpers/dialects.ts';

const DAY = 86_400_000;

describe.each(cliDialects())('authsrv audit on %s', (dialect) => {
  let c: CliEnv;
  let rt: Runtime;
  let now: Date;
  beforeEach(async () => {
    c = await cliEnv(dialect);
    now = new Date();
    rt = await c.runtime(() => new Date(now));
  });
  afterEach(async () => c?.close());

  /** Rows as an API request would write them, `ageDays` old. */
  async function seed(
    n: number,
    fill: (i: number) => Record<string, unknown>,
    ageDays = 0,
  ): Promise<number[]> {
    const ids: number[] = [];
    const saved = now;
    now = new Date(saved.getTime() - ageDays * DAY);
    for (let i = 0; i < n; i++) {
      const e = newAuditEntry('GET /token/', new Date(now), '192.0.2.7');
      Object.assign(e, { success: true }, fill(i));
      ids.push(await writeAudit(rt, e));
    }
    now = saved;
    return ids;
  }
  const dbRows = () => rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();

  it('lists entries as JSON, filtered and paged', async () => {
    await seed(3, (i) => ({ user: `user${i}`, realm: 'r1' }));
    await seed(2, (i) => ({ action: 'POST /validate/check', user: `val${i}`, success: i === 0 }));
    const all = await c.run(['audit', 'list', '--json']);
    expect(all.code).toBe(0);
    const page = JSON.parse(all.stdout);
    expect(page).toMatchObject({ count: 5, current: 1, prev: null, next: null });
    expect(page.auditdata[0]).toMatchObject({ user: 'val1', sig_check: 'OK', missing_line: 'OK' });
    expect(page.auditcolumns).toContain('privacyidea_server');

    const filtered = JSON.parse((await c.run(['audit', 'list', '--json', 'user=user*', 'realm=r1'])).stdout);
    expect(filtered.count).toBe(3);
    expect(filtered.auditdata.map((e: { user: string }) => e.user)).toEqual(['user2', 'user1', 'user0']);
    const action = JSON.parse(
      (await c.run(['audit', 'list', '--json', 'action=POST /validate/check', 'success=0'])).stdout,
    );
    expect(action.auditdata.map((e: { user: string }) => e.user)).toEqual(['val1']);
    const paged = JSON.parse(
      (await c.run(['audit', 'list', '--json', '--page-size', '2', '--page', '2', '--sortorder', 'asc']))
        .stdout,
    );
    expect(paged).toMatchObject({ count: 5, current: 2, prev: 1, next: 3 });
    expect(paged.auditdata.map((e: { user: string }) => e.user)).toEqual(['user2', 'val0']);

    const table = await c.run(['audit', 'list', 'user=val*']);
    expect(table.stdout).toMatch(/POST \/validate\/check/);
    expect(table.stdout).toMatch(/2 entries in all/);

    expect(expectOneLineError(await c.run(['audit', 'list', 'nonsense']))).toMatch(/column=value/);
    expect(expectOneLineError(await c.run(['audit', 'list', '--timelimit', 'soon']))).toMatch(/time span/);
    expect(expectOneLineError(await c.run(['audit', 'list', '--sortorder', 'up']))).toMatch(/sortorder/);
    // Reading is not a change: no audit rows for it.
    expect(await dbRows()).toHaveLength(5);
  });

  it('lists with a timelimit', async () => {
    await seed(2, () => ({ info: 'old' }), 3);
    await seed(1, () => ({ info: 'new' }));
    const r = JSON.parse((await c.run(['audit', 'list', '--json', '--timelimit', '1d'])).stdout);
    expect(r.auditdata.map((e: { info: string }) => e.info)).toEqual(['new']);
  });

  it('exports CSV to a file, one line per row, oldest first, with filters', async () => {
    await seed(4, (i) => ({ user: `u${i}`, info: i === 1 ? "it's, quoted" : '' }));
    const file = join(c.dataDir, 'audit.csv');
    const r = await c.run(['audit', 'export', '--csv', file]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`4 entries written to ${file}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    const rows = await dbRows();
    expect(lines).toHaveLength(rows.length);
    for (const [i, line] of lines.entries()) {
      expect(line.startsWith(`'${rows[i]!.id}','${rows[i]!.date}','OK','OK','GET /token/',`)).toBe(true);
      expect(line).toContain(`'u${i}'`);
      expect(line.endsWith("'")).toBe(true);
    }
    expect(lines[1]).toContain("'it''s, quoted'");

    const out = await c.run(['audit', 'export', 'user=u2']);
    expect(out.code).toBe(0);
    expect(out.stdout.split('\n').filter(Boolean)).toEqual([lines[2]]);
  });

  it('rotates by row count and by age, and audits the rotation', async () => {
    await seed(3, (i) => ({ info: `old${i}` }), 10);
    await seed(5, (i) => ({ info: `new${i}` }));
    const byAge = await c.run(['audit', 'rotate', '--max-age', '7d']);
    expect(byAge).toMatchObject({ code: 0, stdout: 'Deleted 3 entries by age and 0 by count.\n' });
    const afterAge = await dbRows();
    expect(afterAge.map((r) => r.info.startsWith('new') || r.action === 'CLI audit rotate')).not.toContain(
      false,
    );
    expect(afterAge.at(-1)).toMatchObject({
      action: 'CLI audit rotate',
      success: 1,
      administrator: `${CLI_USER}@cli`,
    });

    const byCount = await c.run(['audit', 'rotate', '--max-rows', '2']);
    expect(byCount).toMatchObject({ code: 0, stdout: 'Deleted 0 entries by age and 4 by count.\n' });
    const rest = await dbRows();
    // The two newest rows before the rotation, then the rotation's own row.
    expect(rest.map((r) => (r.info.startsWith('{') ? r.action : r.info))).toEqual([
      'new4',
      'CLI audit rotate',
      'CLI audit rotate',
    ]);
    expect(expectOneLineError(await c.run(['audit', 'rotate']))).toMatch(/No limit given/);
    expect(expectOneLineError(await c.run(['audit', 'rotate', '--max-rows', 'many']))).toMatch(
      /whole number/,
    );
    expect((await c.run(['audit', 'verify'])).code).toBe(0);
  });

  it('verifies the log: exit 0 when intact, 2 after a row was changed or deleted', async () => {
    const ids = await seed(6, (i) => ({ user: `u${i}` }));
    const ok = await c.run(['audit', 'verify']);
    expect(ok).toMatchObject({ code: 0, stdout: '6 entries checked, 0 with a bad signature, 0 gaps.\n' });
    const json = await c.run(['audit', 'verify', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ checked: 6, badSignatures: [], gapsAfter: [] });

    await rt.store.db.updateTable('audit').set({ user: 'mallory' }).where('id', '=', ids[2]!).execute();
    const bad = await c.run(['audit', 'verify']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toContain('1 with a bad signature');
    expect(bad.stdout).toContain(`Bad signatures: ${ids[2]}`);
    expect(JSON.parse((await c.run(['audit', 'verify', '--json'])).stdout).badSignatures).toEqual([ids[2]]);

    await rt.store.db.updateTable('audit').set({ user: 'u2' }).where('id', '=', ids[2]!).execute();
    expect((await c.run(['audit', 'verify'])).code).toBe(0);
    await rt.store.db.deleteFrom('audit').where('id', '=', ids[3]!).execute();
    const gap = await c.run(['audit', 'verify']);
    expect(gap.code).toBe(2);
    expect(gap.stdout).toContain(`Entries missing after: ${ids[2]}`);
  });
});

describe('export progress', () => {
  const isTTY = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  afterEach(() => {
    if (isTTY) Object.defineProperty(process.stderr, 'isTTY', isTTY);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
    vi.restoreAllMocks();
  });

  function capture(tty: boolean): string[] {
    Object.defineProperty(process.stderr, 'isTTY', { value: tty, configurable: true });
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    return written;
  }

  it('draws a bar on a terminal and finishes the line', () => {
    const written = capture(true);
    const p = new Progress('exporting', 4000);
    p.update(1000);
    p.update(2000); // within 100 ms of the last drawing: skipped
    p.done(4000);
    expect(written).toHaveLength(2);
    expect(written[0]).toBe(`\rexporting [${'#'.repeat(8)}${'.'.repeat(22)}] 25% 1000/4000`);
    expect(written[1]).toMatch(/^\rexporting done: 4000 +\n$/);
  });

  it('stays silent when standard error is not a terminal', () => {
    const written = capture(false);
    const p = new Progress('exporting', 10);
    p.update(5);
    p.done(10);
    expect(written).toEqual([]);
  });
});
