import { afterEach, describe, expect, it } from 'vitest';
import type { Random } from '../../src/core/context.ts';
import { closeUserStores } from '../../src/core/directory/index.ts';
import { setRealm } from '../../src/core/realm/index.ts';
import { saveResolver } from '../../src/core/resolver/index.ts';
import { randomKey } from '../../src/core/system/index.ts';
import { assignToken, initToken, lostToken } from '../../src/core/token/index.ts';
import { triggerChallenge } from '../../src/core/validate/index.ts';
import { cryptoRandom } from '../../src/crypto/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { writePasswdFile } from '../helpers/user-stores.ts';

/** Randomness that always draws the same: every byte 0xab, every number the largest allowed. */
const pinned: Random = {
  bytes: (size) => Buffer.alloc(size, 0xab),
  int: (min, max) => (max === undefined ? min - 1 : max - 1),
  uuid: () => '00000000-0000-4000-8000-000000000000',
};

let t: TestRuntime | undefined;
afterEach(async () => {
  if (t) await closeUserStores(t.rt);
  await t?.close();
  t = undefined;
});

describe('randomness comes from the Context', () => {
  it('is node:crypto by default', () => {
    expect(cryptoRandom.bytes(16)).toHaveLength(16);
    expect(cryptoRandom.bytes(16).equals(cryptoRandom.bytes(16))).toBe(false);
    for (let i = 0; i < 50; i++) {
      expect(cryptoRandom.int(3)).toBeLessThan(3);
      expect(cryptoRandom.int(5, 7)).toBeGreaterThanOrEqual(5);
    }
    expect(cryptoRandom.uuid()).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe.each(testDialects())('randomness comes from the Context on %s', (dialect) => {
  it('draws random keys, serials and lost-token passwords from the runtime', async () => {
    t = await openTestRuntime(dialect, { random: pinned });
    expect(randomKey(t.rt, '4', 'hex')).toBe('abababab');
    const { serial } = await initToken(t.ctx, { type: 'spass', pin: '1' });
    expect(serial).toBe('PISP0000ABAB');
    const node = await t.rt.store.db.selectFrom('node').select('uuid').executeTakeFirstOrThrow();
    expect(node.uuid).toBe('00000000-0000-4000-8000-000000000000');
    const file = await writePasswdFile(t.dataDir, 'passwd', [{ login: 'alice', password: 'pw', uid: 1001 }]);
    await saveResolver(t.ctx, 'res1', { type: 'passwdresolver', Filename: file });
    await setRealm(t.ctx, 'realm1', ['res1'], {});
    await assignToken(t.ctx, { serial, user: 'alice', realm: 'realm1' });
    // 16 characters of base58 (the default contents '8'): its last character, 16 times.
    expect((await lostToken(t.ctx, serial)).password).toBe('z'.repeat(16));
  });

  it("draws a challenge's transaction id and a token type's positions from the runtime", async () => {
    t = await openTestRuntime(dialect, { random: pinned });
    const { serial } = await initToken(t.ctx, { type: 'indexedsecret', otpkey: 'abcdef' });
    const r = await triggerChallenge(t.ctx, { serial });
    expect(r.detail.transaction_id).toBe('9'.repeat(20));
    // Two positions of the 6-character secret, each the largest that can be drawn.
    expect(r.detail.message).toContain('positions 6,6 ');
  });
});
