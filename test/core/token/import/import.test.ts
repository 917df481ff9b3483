// Importing token files into the store (reference 3.5): tokens with their realms, owners, counters
// and tokeninfo; what is not imported and why; rights; batches.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Context, localOperator, withCaller } from '../../../../src/core/context.ts';
import { closeUserStores } from '../../../../src/core/directory/user-stores.ts';
import { setPolicy } from '../../../../src/core/policy/index.ts';
import { setRealm } from '../../../../src/core/realm/realm.ts';
import { saveResolver } from '../../../../src/core/resolver/resolver.ts';
import { ANALYZE_AFTER, IMPORT_BATCH, importTokens } from '../../../../src/core/token/import/import.ts';
import { findToken, tokenState } from '../../../../src/core/token/store/index.ts';
import { PolicyError } from '../../../../src/errors.ts';
import type { Store } from '../../../../src/store/database.ts';
import { hotpValue } from '../../../../src/tokens/oath.ts';
import { testDialects } from '../../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../../helpers/runtime.ts';
import { pskcFile, SEED } from '../../../helpers/token-files.ts';
import { writePasswdFile } from '../../../helpers/user-stores.ts';

describe.each(testDialects())('importTokens on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
    const file = await writePasswdFile(t.dataDir, 'passwd', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
    ]);
    await saveResolver(t.ctx, 'res1', { type: 'passwdresolver', Filename: file });
    await setRealm(t.ctx, 'realm1', ['res1'], {});
    await setRealm(t.ctx, 'realm2', ['res1'], {});
  });
  afterEach(async () => {
    if (t) await closeUserStores(t.rt);
    await t?.close();
  });

  const oath = `# version: 2\nalice, res1, realm1, IMP1, ${SEED}, hotp, 6, 4\n, , , IMP2, ${SEED}, totp, 8, 60\nnobody, res1, realm1, IMP3, ${SEED}\n, , , BAD, zz\n`;

  it('stores hardware tokens with their realms, owners, counters and tokeninfo', async () => {
    const progress: number[] = [];
    const r = await importTokens(t.ctx, {
      type: 'OATH CSV',
      content: oath,
      tokenrealms: ['realm2'],
      onProgress: (done) => progress.push(done),
    });
    expect(r.n_imported).toBe(3);
    expect(r.n_not_imported).toBe(1);
    expect(r.notImported).toEqual([
      { serial: 'BAD', source: 'line 5', reason: 'the key is not hexadecimal' },
    ]);
    expect(progress).toEqual([1, 2, 3]);
    const imp1 = (await findToken(t.rt, 'IMP1'))!;
    expect(imp1.row).toMatchObject({
      tokentype: 'hotp',
      description: 'imported',
      otplen: 6,
      count: 4,
      active: 1,
    });
    expect(imp1.info).toMatchObject({ tokenkind: 'hardware', hashlib: 'sha1' });
    expect(imp1.owner).toMatchObject({ resolver: 'res1', realm: 'realm1' });
    expect(imp1.realms).toEqual(['realm1', 'realm2']);
    expect(imp1.row.key_enc).not.toContain(SEED);
    // The imported seed gives the OTP values of the counter stored.
    const state = tokenState(t.rt, imp1);
    expect(imp1.type.checkOtp(state, hotpValue(Buffer.from(SEED, 'hex'), 3, 6), t.rt.clock())).toBeNull();
    expect(imp1.type.checkOtp(state, hotpValue(Buffer.from(SEED, 'hex'), 5, 6), t.rt.clock())).toMatchObject({
      counter: 5,
    });
    const imp2 = (await findToken(t.rt, 'IMP2'))!;
    expect(imp2.row).toMatchObject({ tokentype: 'totp', otplen: 8 });
    expect(imp2.info).toMatchObject({ tokenkind: 'hardware', timeStep: '60', timeShift: '0' });
    expect(imp2.owner).toBeUndefined();
    // An unknown user: imported without owner, as privacyIDEA does.
    expect((await findToken(t.rt, 'IMP3'))!.owner).toBeUndefined();
  });

  it('does not overwrite existing tokens or import a serial twice', async () => {
    await importTokens(t.ctx, { type: 'oathcsv', content: `X1, ${SEED}\n` });
    const r = await importTokens(t.ctx, {
      type: 'oathcsv',
      content: `X1, ${'ab'.repeat(20)}\nX2, ${SEED}\nX2, ${SEED}\n`,
    });
    expect(r.imported).toEqual(['X2']);
    expect(r.notImported.map((n) => n.reason)).toEqual([
      'a token with the serial X1 exists already',
      'the serial X2 appears twice in the file',
    ]);
    const x1 = (await findToken(t.rt, 'X1'))!;
    expect(tokenState(t.rt, x1).key().toString('hex')).toBe(SEED);
  });

  it('imports Yubico OTP lines as yubikey tokens (otplen = 32 + public id)', async () => {
    const r = await importTokens(t.ctx, {
      type: 'yubikeycsv',
      content: '508327,cccccccccccc,83cebdfb7b93,a47c5bf9c152202f577be6721c0113af,,2013-12-12T08:43:17,\n',
    });
    expect(r).toMatchObject({ n_imported: 1, n_not_imported: 0 });
    expect((await findToken(t.rt, 'UBAM508327_X'))!.row).toMatchObject({ tokentype: 'yubikey', otplen: 44 });
  });

  it('imports static passwords of a PSKC file as pw tokens', async () => {
    const password = Buffer.from('geheim1234', 'utf8').toString('hex');
    const r = await importTokens(t.ctx, {
      type: 'pskc',
      content: pskcFile([{ serial: 'PW1', type: 'pw', secret: password, otplen: 10 }]),
    });
    expect(r).toMatchObject({ n_imported: 1, n_not_imported: 0 });
    const pw = (await findToken(t.rt, 'PW1'))!;
    expect(pw.row).toMatchObject({ tokentype: 'pw', otplen: 10, count: 0 });
    expect(tokenState(t.rt, pw).key().toString('utf8')).toBe('geheim1234');
  });

  it('imports an encrypted PSKC file; unknown realms are an error', async () => {
    const psk = randomBytes(16);
    const file = pskcFile([{ serial: 'PS1', type: 'hotp', secret: SEED, counter: 2 }], psk);
    const r = await importTokens(t.ctx, { type: 'pskc', content: file, psk: psk.toString('hex') });
    expect(r).toMatchObject({ n_imported: 1, n_not_imported: 0 });
    expect((await findToken(t.rt, 'PS1'))!.row).toMatchObject({ count: 2, description: 'Token Works' });
    await expect(
      importTokens(t.ctx, { type: 'oathcsv', content: `Y, ${SEED}`, tokenrealms: ['nope'] }),
    ).rejects.toThrow("The realm 'nope' does not exist.");
  });

  it('needs importtokens for every target realm', async () => {
    const admin = withCaller(t.rt, {
      role: 'admin',
      username: 'helper',
      realm: '',
      authtype: 'password',
      client: '',
    });
    await setPolicy(t.ctx, 'a1', { scope: 'admin', action: 'importtokens', realm: 'realm1' });
    await setPolicy(t.ctx, 'a2', { scope: 'admin', action: 'tokenlist' });
    const content = `R1, ${SEED}\n`;
    expect(
      (await importTokens(admin, { type: 'oathcsv', content, tokenrealms: ['realm1'] })).n_imported,
    ).toBe(1);
    await expect(
      importTokens(admin, { type: 'oathcsv', content, tokenrealms: ['realm1', 'realm2'] }),
    ).rejects.toThrow(PolicyError);
    await expect(importTokens(admin, { type: 'oathcsv', content })).rejects.toThrow(PolicyError);
    // The operator is never restricted.
    expect(
      (await importTokens(withCaller(t.rt, localOperator()), { type: 'oathcsv', content: `R2, ${SEED}` }))
        .n_imported,
    ).toBe(1);
  });

  /** A key of its own per token, so that a mixed-up seed shows. */
  const keyOf = (i: number) => i.toString(16).padStart(40, '0');

  it('writes files larger than one batch: duplicates in the file and in the store, bad lines, owners', async () => {
    // Two serials in the store already, one of them in the second batch.
    await importTokens(t.ctx, { type: 'oathcsv', content: `B0003, ${SEED}\nB0700, ${SEED}\n` });
    const n = 2 * IMPORT_BATCH + 7;
    const lines = ['# version: 2'];
    for (let i = 0; i < n; i++) {
      const owner = i % 3 === 0 ? 'alice, res1, realm1' : ', , ';
      lines.push(
        `${owner}, B${String(i).padStart(4, '0')}, ${keyOf(i)}, ${i % 2 ? 'totp, 8, 60' : `hotp, 6, ${i}`}`,
      );
    }
    lines.push(`, , , B0001, ${SEED}`); // twice in the file, far apart
    lines.splice(IMPORT_BATCH + 1, 0, `, , , B0999, ${SEED}`); // before its own line, in another batch
    lines.splice(10, 0, ', , , BADKEY, xyz');
    const progress: number[] = [];
    const r = await importTokens(t.ctx, {
      type: 'oathcsv',
      content: `${lines.join('\n')}\n`,
      tokenrealms: ['realm2'],
      onProgress: (done, total) => progress.push(done, total),
    });
    const total = n + 2;
    expect(progress.length).toBe(2 * total);
    expect(progress.slice(-2)).toEqual([total, total]);
    expect(progress.filter((_, i) => i % 2 === 0)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(r.notImported).toEqual([
      { serial: 'BADKEY', source: 'line 11', reason: 'the key is not hexadecimal' },
      { serial: 'B0003', source: 'line 5', reason: 'a token with the serial B0003 exists already' },
      { serial: 'B0700', source: 'line 704', reason: 'a token with the serial B0700 exists already' },
      { serial: 'B0999', source: 'line 1003', reason: 'the serial B0999 appears twice in the file' },
      { serial: 'B0001', source: `line ${n + 4}`, reason: 'the serial B0001 appears twice in the file' },
    ]);
    expect(r).toMatchObject({ n_imported: n - 2, n_not_imported: 5 });
    // In file order: B0999 from its first (early) line.
    expect(r.imported.indexOf('B0999')).toBe(IMPORT_BATCH - 1);
    expect(r.imported.filter((s) => s !== 'B0999')).toEqual(
      Array.from({ length: n }, (_, i) => `B${String(i).padStart(4, '0')}`).filter(
        (s) => s !== 'B0003' && s !== 'B0700' && s !== 'B0999',
      ),
    );
    const rows = await t.rt.store.db.selectFrom('token').select('id').execute();
    expect(rows.length).toBe(n);
    const counts = async (table: 'tokeninfo' | 'tokenrealm' | 'tokenowner') =>
      Number(
        (
          await t.rt.store.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    // Owned: every third line, but B0003 was there already and B0999 came from its line without owner.
    const owned = Math.ceil(n / 3) - 2;
    expect(await counts('tokenowner')).toBe(owned);
    // realm2 for every imported token, realm1 too for the owned ones.
    expect(await counts('tokenrealm')).toBe(n - 2 + owned);
    for (const i of [0, 1, 498, 499, 500, 501, 1000, n - 1]) {
      const tok = (await findToken(t.rt, `B${String(i).padStart(4, '0')}`))!;
      expect(tokenState(t.rt, tok).key().toString('hex')).toBe(keyOf(i));
      expect(tok.info).toMatchObject(
        i % 2
          ? { tokenkind: 'hardware', timeStep: '60', timeShift: '0' }
          : { tokenkind: 'hardware', hashlib: 'sha1' },
      );
      expect(tok.row).toMatchObject(
        i % 2 ? { tokentype: 'totp', otplen: 8 } : { tokentype: 'hotp', count: i },
      );
      expect(tok.realms).toEqual(i % 3 === 0 ? ['realm1', 'realm2'] : ['realm2']);
      expect(tok.owner?.realm).toBe(i % 3 === 0 ? 'realm1' : undefined);
    }
    const b999 = (await findToken(t.rt, 'B0999'))!;
    expect(tokenState(t.rt, b999).key().toString('hex')).toBe(SEED);
    expect(b999.row).toMatchObject({ tokentype: 'hotp', count: 0 });
    expect(b999.realms).toEqual(['realm2']);
    expect(b999.owner).toBeUndefined();
    // The tokens that were there keep their key.
    expect(
      tokenState(t.rt, (await findToken(t.rt, 'B0700'))!)
        .key()
        .toString('hex'),
    ).toBe(SEED);
    // At least ANALYZE_AFTER tokens: the planner's statistics of the token tables were refreshed.
    expect(r.n_imported).toBeGreaterThanOrEqual(ANALYZE_AFTER);
    if (dialect === 'postgres') {
      const analysed = await sql<{ relname: string }>`select relname from pg_stat_user_tables
        where relname in ('token', 'tokeninfo', 'tokenrealm', 'tokenowner') and last_analyze is not null`.execute(
        t.rt.store.db,
      );
      expect(analysed.rows.map((row) => row.relname).sort()).toEqual([
        'token',
        'tokeninfo',
        'tokenowner',
        'tokenrealm',
      ]);
    }
  });

  it('compares serials exactly, as a single token lookup does', async () => {
    await importTokens(t.ctx, { type: 'oathcsv', content: `CASE1, ${SEED}\n` });
    expect(await findToken(t.rt, 'case1')).toBeUndefined();
    const r = await importTokens(t.ctx, { type: 'oathcsv', content: `case1, ${SEED}\nCASE1, ${SEED}\n` });
    expect(r.imported).toEqual(['case1']);
    expect(r.notImported.map((n) => n.reason)).toEqual(['a token with the serial CASE1 exists already']);
  });

  /**
   * The context of the test runtime whose database calls `before(n)` ahead of its n-th transaction
   * (counted from 1): a concurrent writer, or a failure of that one transaction.
   */
  function interceptTransactions(before: (n: number) => Promise<void>): Context {
    const db = t.rt.store.db;
    let n = 0;
    const proxy = new Proxy(db, {
      get(target, prop) {
        if (prop === 'transaction') {
          return () => ({
            execute: async <T>(fn: (trx: unknown) => Promise<T>) => {
              await before(++n);
              return target.transaction().execute(fn as never) as Promise<T>;
            },
          });
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const store: Store = { ...t.rt.store, db: proxy };
    return { ...t.ctx, store };
  }

  it('a token failing in the middle of a batch: the batch is written token by token, the others are imported', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 20; i++) lines.push(`M${i}, ${keyOf(i)}, hotp, 6`);
    const ctx = interceptTransactions(async (n) => {
      // After the existence check, before the batch is written, another import stores M7.
      if (n === 1) await importTokens(t.ctx, { type: 'oathcsv', content: `M7, ${SEED}` });
      // Written one by one afterwards (M7 is found and skipped): the 13th of those, M13, fails.
      if (n === 1 + 13) throw new Error('the disk is full');
    });
    const r = await importTokens(ctx, {
      type: 'oathcsv',
      content: lines.join('\n'),
      tokenrealms: ['realm1'],
    });
    expect(r.notImported).toEqual([
      { serial: 'M7', source: 'line 8', reason: 'a token with the serial M7 exists already' },
      { serial: 'M13', source: 'line 14', reason: 'could not be stored: the disk is full' },
    ]);
    expect(r.imported).toEqual(lines.map((_, i) => `M${i}`).filter((s) => s !== 'M7' && s !== 'M13'));
    expect(await findToken(t.rt, 'M13')).toBeUndefined();
    // Nothing of the failed batch stays: M7 is the other import's, without realm.
    const m7 = (await findToken(t.rt, 'M7'))!;
    expect(tokenState(t.rt, m7).key().toString('hex')).toBe(SEED);
    expect(m7.realms).toEqual([]);
    expect(Object.keys(m7.info).sort()).toEqual(['creation_date', 'hashlib', 'tokenkind']);
    const m19 = (await findToken(t.rt, 'M19'))!;
    expect(tokenState(t.rt, m19).key().toString('hex')).toBe(keyOf(19));
    expect(m19.realms).toEqual(['realm1']);
    const infos = await t.rt.store.db.selectFrom('tokeninfo').select('token_id').execute();
    expect(infos.length).toBe(3 * 19);
  });
});
