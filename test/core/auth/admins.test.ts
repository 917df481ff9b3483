import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addAdmin,
  addImportedAdmin,
  deleteAdmin,
  ensureInitialAdmin,
  importedAdminRefusal,
  listAdmins,
  setAdminPassword,
  verifyAdmin,
} from '../../../src/core/auth/admins.ts';
import { hashPassword } from '../../../src/crypto/index.ts';
import { ParameterError, ResourceNotFoundError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('administrators on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
  });
  afterEach(async () => t?.close());

  it('adds, verifies, lists, changes and deletes', async () => {
    const rec = await addAdmin(t.ctx, 'alice', 'Alice-pass-1');
    expect(rec).toEqual({ name: 'alice', createdAt: '2026-03-01T12:00:00.000Z' });
    expect(await verifyAdmin(t.rt, 'alice', 'Alice-pass-1')).toBe(true);
    expect(await verifyAdmin(t.rt, 'alice', 'alice-pass-1')).toBe(false);
    expect(await verifyAdmin(t.rt, 'nobody', 'Alice-pass-1')).toBe(false);
    expect(await listAdmins(t.rt)).toEqual([rec]);
    await setAdminPassword(t.ctx, 'alice', 'Alice-pass-2');
    expect(await verifyAdmin(t.rt, 'alice', 'Alice-pass-2')).toBe(true);
    expect(await verifyAdmin(t.rt, 'alice', 'Alice-pass-1')).toBe(false);
    await deleteAdmin(t.ctx, 'alice');
    expect(await listAdmins(t.rt)).toEqual([]);
    await expect(deleteAdmin(t.ctx, 'alice')).rejects.toThrow(ResourceNotFoundError);
    await expect(setAdminPassword(t.ctx, 'alice', 'Alice-pass-3')).rejects.toThrow(ResourceNotFoundError);
  });

  it('stores a hash, not the password', async () => {
    await addAdmin(t.ctx, 'alice', 'Alice-pass-1');
    const row = await t.rt.store.db.selectFrom('admin').selectAll().executeTakeFirstOrThrow();
    expect(row.password_hash).not.toContain('Alice-pass-1');
  });

  it('refuses bad names, short and long passwords, and duplicates', async () => {
    for (const name of ['', ' alice', '-x', 'a b', 'x'.repeat(65), 'ä']) {
      await expect(addAdmin(t.ctx, name, 'Good-pass-1')).rejects.toThrow(ParameterError);
    }
    await expect(addAdmin(t.ctx, 'bob', 'short')).rejects.toThrow(/at least 8/);
    await expect(addAdmin(t.ctx, 'bob', 'x'.repeat(4097))).rejects.toThrow(/at most 4096/);
    await addAdmin(t.ctx, 'bob', 'Good-pass-1');
    await expect(addAdmin(t.ctx, 'bob', 'Other-pass-1')).rejects.toThrow(/already exists/);
    expect(await verifyAdmin(t.rt, 'bob', 'Good-pass-1')).toBe(true);
  });

  it('reports a concurrent duplicate as a duplicate, not a database error', async () => {
    const results = await Promise.allSettled([
      addAdmin(t.ctx, 'carol', 'Carol-pass-1'),
      addAdmin(t.ctx, 'carol', 'Carol-pass-2'),
      addAdmin(t.ctx, 'carol', 'Carol-pass-3'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ParameterError);
    }
    expect((await listAdmins(t.rt)).map((a) => a.name)).toEqual(['carol']);
  });

  it('creates the initial administrator once, also when nodes start together', async () => {
    const passwords = await Promise.all([ensureInitialAdmin(t.ctx), ensureInitialAdmin(t.ctx)]);
    const given = passwords.filter((p) => p !== undefined);
    expect(given).toHaveLength(1);
    expect(await verifyAdmin(t.rt, 'admin', given[0]!)).toBe(true);
    expect(await ensureInitialAdmin(t.ctx)).toBeUndefined();
  });

  describe("imported with another system's peppered hash", () => {
    const small = { memoryKiB: 1024, passes: 1, parallelism: 1 };
    const pepper = 'site-pepper';
    const row = () =>
      t.rt.store.db
        .selectFrom('admin')
        .select(['password_hash', 'password_pepper'])
        .where('name', '=', 'imported')
        .executeTakeFirstOrThrow();

    it("verifies pepper + password, then keeps authsrv's own hash of the password alone", async () => {
      const hash = await hashPassword(`${pepper}Imported-1`, small);
      await addImportedAdmin(t.ctx, { name: 'imported', hash, pepper });
      expect(t.rt.hsm.decrypt((await row()).password_pepper!)).toBe(pepper);
      expect(await verifyAdmin(t.rt, 'imported', `${pepper}Imported-1`)).toBe(false);
      expect((await row()).password_hash).toBe(hash);
      expect(await verifyAdmin(t.rt, 'imported', 'Imported-1')).toBe(true);
      expect(await row()).toEqual({
        password_hash: expect.stringMatching(/^\$argon2id\$v=19\$m=19456,/),
        password_pepper: null,
      });
      expect(await verifyAdmin(t.rt, 'imported', 'Imported-1')).toBe(true);
    });

    it('drops the pepper when the password is set anew', async () => {
      await addImportedAdmin(t.ctx, {
        name: 'imported',
        hash: await hashPassword(`${pepper}Imported-1`, small),
        pepper,
      });
      await setAdminPassword(t.ctx, 'imported', 'Brand-new-pass');
      expect((await row()).password_pepper).toBeNull();
      expect(await verifyAdmin(t.rt, 'imported', 'Brand-new-pass')).toBe(true);
      expect(await verifyAdmin(t.rt, 'imported', 'Imported-1')).toBe(false);
    });

    it('refuses names authsrv does not take and hashes it cannot verify', async () => {
      expect(importedAdminRefusal({ name: 'bad name', hash: '$argon2id$x', pepper })).toMatch(/names are/);
      expect(importedAdminRefusal({ name: 'ok', hash: '$pbkdf2-sha512$1$a$b', pepper })).toMatch(
        /not argon2id/,
      );
      expect(importedAdminRefusal({ name: 'ok', hash: '$argon2id$x', pepper })).toBeUndefined();
      await expect(
        addImportedAdmin(t.ctx, { name: 'bad name', hash: '$argon2id$x', pepper }),
      ).rejects.toThrow(ParameterError);
      expect(await listAdmins(t.rt)).toEqual([]);
    });
  });
});
