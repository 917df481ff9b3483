import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearDefaultRealm, defaultRealmView, listRealms, setRealm } from '../../../src/core/realm/index.ts';
import { saveResolver } from '../../../src/core/resolver/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

describe.each(testDialects())('defaultRealmView on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  it('is empty without realms, then the first realm (the default) with its resolvers', async () => {
    expect(await defaultRealmView(t.rt)).toEqual({});
    const file = await writePasswdFile(t.dataDir, 'users', [{ login: 'bob', password: 'pw', uid: 1000 }]);
    await saveResolver(t.ctx, 'res1', { type: 'passwdresolver', Filename: file });
    await setRealm(t.ctx, 'realm1', ['res1'], {});
    await setRealm(t.ctx, 'realm2', ['res1'], {});
    const view = await defaultRealmView(t.rt);
    expect(Object.keys(view)).toEqual(['realm1']);
    expect(view.realm1).toEqual((await listRealms(t.rt)).realm1);
    expect(view.realm1?.default).toBe(true);
  });

  it('is empty again once no realm is the default', async () => {
    await clearDefaultRealm(t.ctx);
    expect(await defaultRealmView(t.rt)).toEqual({});
  });
});
