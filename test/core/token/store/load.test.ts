// The two ways of loading tokens (src/core/token/store/load.ts) agree on every dialect: the login path's
// single query (tokeninfo as a JSON array in the token row) and loadRows' separate queries, for
// tokeninfo values that JSON and the databases could get wrong, a sealed (password) entry, several
// realms and no tokeninfo at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRealm } from '../../../../src/core/realm/realm.ts';
import { saveResolver } from '../../../../src/core/resolver/resolver.ts';
import { initToken } from '../../../../src/core/token/enroll.ts';
import { assignToken } from '../../../../src/core/token/lifecycle.ts';
import { setTokenInfo } from '../../../../src/core/token/store/index.ts';
import { findToken, loadRows, tokensOfOwner } from '../../../../src/core/token/store/load.ts';
import type { LoadedToken } from '../../../../src/core/token/store/types.ts';
import { testDialects } from '../../../helpers/dialects.ts';
import { pwUser } from '../../../helpers/realms.ts';
import { openTestRuntime, type TestRuntime } from '../../../helpers/runtime.ts';
import { writePasswdFile } from '../../../helpers/user-stores.ts';

const ODD_VALUES: Record<string, string> = {
  quote: `it's "quoted" \\ back\\slash`,
  unicode: 'Grüße 🔐 日本',
  lines: 'one\ntwo\r\nthree\ttab',
  json: '{"a":[1,2]}',
  digits: '007',
  empty: '',
  long: 'x'.repeat(5000),
};

const view = (t: LoadedToken | undefined) =>
  t && { row: t.row, info: t.info, owner: t.owner, realms: t.realms, type: t.type.type };

describe.each(testDialects())('loading tokens on %s', (dialect) => {
  let trt: TestRuntime;
  beforeAll(async () => {
    trt = await openTestRuntime(dialect);
    const { ctx } = trt;
    const file = await writePasswdFile(trt.dataDir, 'users', [pwUser('alice', 1001)]);
    await saveResolver(ctx, 'files', { type: 'passwdresolver', Filename: file });
    await setRealm(ctx, 'zeta', ['files'], {});
    await setRealm(ctx, 'alpha', ['files'], {});
    await initToken(ctx, {
      type: 'hotp',
      otpkey: '3132333435363738393031323334353637383930',
      serial: 'LOAD1',
    });
    await initToken(ctx, { type: 'spass', serial: 'LOAD2' });
    await assignToken(ctx, { serial: 'LOAD1', user: 'alice', realm: 'zeta' });
    await assignToken(ctx, { serial: 'LOAD2', user: 'alice', realm: 'zeta' });
    const t1 = await findToken(trt.rt, 'LOAD1');
    await setTokenInfo(trt.rt, trt.rt.store.db, t1!.row.id, ODD_VALUES);
    await setTokenInfo(trt.rt, trt.rt.store.db, t1!.row.id, { secret: 's3cr3t "x"' }, 'password');
    await trt.rt.store.db
      .insertInto('tokenrealm')
      .values({
        token_id: t1!.row.id,
        realm_id: (
          await trt.rt.store.db
            .selectFrom('realm')
            .select('id')
            .where('name', '=', 'alpha')
            .executeTakeFirstOrThrow()
        ).id,
      })
      .execute();
    await initToken(ctx, { type: 'spass', serial: 'LOAD3' });
    await trt.rt.store.db
      .deleteFrom('tokeninfo')
      .where('token_id', '=', (await findToken(trt.rt, 'LOAD3'))!.row.id)
      .execute();
  });
  afterAll(async () => {
    await trt?.close();
  });

  it('gives the same token by serial as loadRows, odd values and the sealed entry included', async () => {
    const t = await findToken(trt.rt, 'LOAD1');
    expect(t?.info).toMatchObject({ ...ODD_VALUES, secret: 's3cr3t "x"' });
    expect(t?.realms).toEqual(['alpha', 'zeta']);
    const [viaRows] = await loadRows(trt.rt, [t!.row]);
    expect(view(t)).toEqual(view(viaRows));
  });

  it('gives a token without tokeninfo an empty one', async () => {
    const t = await findToken(trt.rt, 'LOAD3');
    expect(t?.info).toEqual({});
    const [viaRows] = await loadRows(trt.rt, [t!.row]);
    expect(view(t)).toEqual(view(viaRows));
  });

  it('gives the tokens of an owner, each once, as loadRows does', async () => {
    const t = await findToken(trt.rt, 'LOAD1');
    const owned = await tokensOfOwner(trt.rt, t!.owner!.resolver, t!.owner!.userId);
    expect(owned.map((x) => x.row.serial)).toEqual(['LOAD1', 'LOAD2']);
    const viaRows = await loadRows(
      trt.rt,
      owned.map((x) => x.row),
    );
    expect(owned.map(view)).toEqual(viaRows.map(view));
  });
});
