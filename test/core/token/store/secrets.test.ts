// A token PIN hashed with other argon2id parameters than authsrv's (privacyIDEA's, imported) is
// replaced by authsrv's own hash at the first check it passes (src/core/token/store/secrets.ts),
// on every dialect: only on a match, only while the row still holds that hash, never for authsrv's
// own hashes or sealed PINs, and a failed replacement does not fail the check.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../../../../src/core/runtime.ts';
import { initToken } from '../../../../src/core/token/enroll.ts';
import { findToken } from '../../../../src/core/token/store/load.ts';
import { pinHash, pinMatches } from '../../../../src/core/token/store/secrets.ts';
import { setPin } from '../../../../src/core/token/store/token-row.ts';
import { needsRehash } from '../../../../src/crypto/password-hash.ts';
import { testDialects } from '../../../helpers/dialects.ts';
import { passlibArgon2 } from '../../../helpers/passlib-argon2.ts';
import { openTestRuntime, type TestRuntime } from '../../../helpers/runtime.ts';

const AUTHSRV_PHC = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/;

describe.each(testDialects())('token PIN hashes of other parameters on %s', (dialect) => {
  let trt: TestRuntime;
  let serials = 0;
  beforeAll(async () => {
    trt = await openTestRuntime(dialect);
  });
  afterAll(() => trt?.close());

  /** A new spass token whose pin_hash is `stored`. */
  async function tokenWithPin(stored: string): Promise<{ serial: string; id: number }> {
    const serial = `REHASH${++serials}`;
    await initToken(trt.ctx, { type: 'spass', serial });
    const id = (await findToken(trt.rt, serial))!.row.id;
    await setPin(trt.rt.store.db, id, stored);
    return { serial, id };
  }
  const storedPin = async (serial: string) => (await findToken(trt.rt, serial))!.row.pin_hash;
  const check = async (serial: string, pin: string) =>
    pinMatches((await findToken(trt.rt, serial))!, pin, trt.rt);

  it("accepts the right PIN, then holds authsrv's hash of it, which accepts it and refuses others", async () => {
    const old = passlibArgon2('4711');
    expect(needsRehash(old)).toBe(true);
    const { serial } = await tokenWithPin(old);
    expect(await check(serial, '4711')).toBe(true);
    const now = await storedPin(serial);
    expect(now).not.toBe(old);
    expect(now).toMatch(AUTHSRV_PHC);
    expect(await check(serial, '4711')).toBe(true);
    expect(await check(serial, '4712')).toBe(false);
    expect(await check(serial, '')).toBe(false);
  });

  it('keeps the hash of other parameters when the PIN is wrong', async () => {
    const old = passlibArgon2('4711');
    const { serial } = await tokenWithPin(old);
    expect(await check(serial, '0000')).toBe(false);
    expect(await check(serial, '')).toBe(false);
    expect(await storedPin(serial)).toBe(old);
  });

  it('does not overwrite a PIN changed between loading the token and the check', async () => {
    const { serial, id } = await tokenWithPin(passlibArgon2('4711'));
    const loaded = (await findToken(trt.rt, serial))!;
    const changed = await pinHash('new-pin');
    await setPin(trt.rt.store.db, id, changed);
    // The check runs on what was loaded: the old PIN matched it, but the new PIN stays.
    expect(await pinMatches(loaded, '4711', trt.rt)).toBe(true);
    expect(await storedPin(serial)).toBe(changed);
    expect(await check(serial, 'new-pin')).toBe(true);
    expect(await check(serial, '4711')).toBe(false);
  });

  it("never rewrites authsrv's own hashes or a sealed PIN", async () => {
    const own = await pinHash('4711');
    expect(needsRehash(own)).toBe(false);
    const a = await tokenWithPin(own);
    expect(await check(a.serial, '4711')).toBe(true);
    expect(await check(a.serial, '4711')).toBe(true);
    expect(await storedPin(a.serial)).toBe(own);
    const sealed = await pinHash('4711', trt.rt);
    const b = await tokenWithPin(sealed);
    expect(await check(b.serial, '4711')).toBe(true);
    expect(await storedPin(b.serial)).toBe(sealed);
  });

  it('accepts the PIN and logs a warning when the new hash cannot be stored', async () => {
    const old = passlibArgon2('4711');
    const { serial } = await tokenWithPin(old);
    const loaded = (await findToken(trt.rt, serial))!;
    const lines: string[] = [];
    // A second runtime on the same database whose connection is closed: the UPDATE fails for real.
    const closed = await openRuntime(trt.rt.config, {
      logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }),
    });
    await closed.store.close();
    expect(await pinMatches(loaded, '4711', closed)).toBe(true);
    expect(lines.map((l) => JSON.parse(l) as { msg: string; serial: string })).toEqual([
      expect.objectContaining({ serial, msg: "the PIN hash of a token could not be replaced by authsrv's" }),
    ]);
    expect(await storedPin(serial)).toBe(old);
  });
});
