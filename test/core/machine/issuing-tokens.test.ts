// The set of tokens attached for an application that issues items (offline), kept in memory by every
// node behind the machinetoken_version change counter: which writes move the counter, that an
// attachment or detachment made on one node (a runtime with its own pool and caches on the same
// database) is seen by the next check on another, that a deleted token leaves every node's set, and
// that a load begun before a local write is not handed out.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MACHINETOKEN_VERSION_ROW, readCounters } from '../../../src/core/change-counters.ts';
import { type Context, localOperator, type Runtime, withCaller } from '../../../src/core/context.ts';
import { attachToken, detachToken, setAttachmentOptions } from '../../../src/core/machine/index.ts';
import { hasIssuingAttachment } from '../../../src/core/machine/issuing-tokens.ts';
import { openRuntime } from '../../../src/core/runtime.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { deleteTokens } from '../../../src/core/token/lifecycle.ts';
import { check } from '../../../src/core/validate/check.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { hotp } from '../../helpers/otp.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { holdStatements } from '../../helpers/sql-recorder.ts';

const KEY = '3132333435363738393031323334353637383930';
const PIN = 'pin1';
const CLIENT = '10.0.0.1';
/** Few, cheap values: the tests are about whether items are issued, not about the hashes. */
const OPTIONS = { count: '2', rounds: '10' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDialects())(
  'the tokens attached for offline, as every node keeps them, on %s',
  (dialect) => {
    let a: TestRuntime;
    /** A second node: its own connection pool and caches on the same database. */
    let b: Runtime;
    let bctx: Context;
    /** The next HOTP counter of each token. */
    let next: Record<string, number>;

    beforeEach(async () => {
      a = await openTestRuntime(dialect);
      b = await openRuntime(a.rt.config, { logger: pino({ level: 'silent' }), clock: () => a.rt.clock() });
      bctx = withCaller(b, localOperator());
      for (const serial of ['OFF1', 'OFF2'])
        await initToken(a.ctx, { type: 'hotp', otpkey: KEY, pin: PIN, serial });
      next = { OFF1: 0, OFF2: 0 };
    });
    afterEach(async () => {
      await b?.store.close();
      await a?.close();
    });

    const metaRow = async () =>
      (
        await a.rt.store.db
          .selectFrom('meta')
          .select('value')
          .where('name', '=', MACHINETOKEN_VERSION_ROW)
          .executeTakeFirst()
      )?.value;
    const tokenId = async (serial: string) =>
      Number(
        (
          await a.rt.store.db
            .selectFrom('token')
            .select('id')
            .where('serial', '=', serial)
            .executeTakeFirstOrThrow()
        ).id,
      );
    const attach = (ctx: Context, serial: string) =>
      attachToken(ctx, { serial, application: 'offline', options: OPTIONS });
    const detach = (ctx: Context, serial: string) => detachToken(ctx, { serial, application: 'offline' });
    /** A successful check of a token on a node; the serials of the offline items it issued. */
    const issued = async (rt: Runtime, serial: string) => {
      const r = await check(rt, {
        serial,
        pass: PIN + hotp(KEY, next[serial]!),
        client: CLIENT,
        wantsAuthItems: true,
      });
      expect(r.value).toBe(true);
      const items = r.authItems?.offline ?? [];
      // The counter moves past the values handed out.
      next[serial] = next[serial]! + 1 + (items.length > 0 ? Number(OPTIONS.count) : 0);
      return items.map((i) => i.serial);
    };

    it('moves machinetoken_version with every attach, detach and deletion of an attached token, and only then', async () => {
      expect(await metaRow()).toBeUndefined();
      await attach(a.ctx, 'OFF1');
      expect(await metaRow()).toBe('1');
      await detach(a.ctx, 'OFF1');
      expect(await metaRow()).toBe('2');
      await attach(a.ctx, 'OFF1');
      expect(await metaRow()).toBe('3');
      // Options are not what the nodes keep; failed writes change nothing.
      expect(
        await setAttachmentOptions(a.ctx, { serial: 'OFF1', application: 'offline' }, { count: '3' }),
      ).toEqual({ added: 1, deleted: 0 });
      await expect(attach(a.ctx, 'NOPE')).rejects.toThrow(/could not be found/);
      await expect(detach(a.ctx, 'OFF2')).rejects.toThrow(/not attached/);
      expect(await metaRow()).toBe('3');
      // Deleting a token with attachments moves it in the deletion's transaction; one without does not.
      await deleteTokens(a.ctx, { serial: 'OFF2' });
      expect(await metaRow()).toBe('3');
      await deleteTokens(a.ctx, { serial: 'OFF1' });
      expect(await metaRow()).toBe('4');
      expect((await readCounters(b.store)).machinetoken).toBe(4);
    });

    it('shows an attachment made on one node to the next check on the other, and its detachment', async () => {
      // Both nodes have their sets loaded before anything is attached.
      expect(await issued(b, 'OFF1')).toEqual([]);
      expect(await issued(a.rt, 'OFF1')).toEqual([]);

      await attach(a.ctx, 'OFF1');
      expect(await issued(b, 'OFF1')).toEqual(['OFF1']);
      expect(await issued(a.rt, 'OFF1')).toEqual(['OFF1']);
      expect(await issued(b, 'OFF2')).toEqual([]);

      await detach(a.ctx, 'OFF1');
      expect(await issued(b, 'OFF1')).toEqual([]);
      expect(await issued(a.rt, 'OFF1')).toEqual([]);

      // The other way round: node b writes, node a checks.
      await attach(bctx, 'OFF2');
      expect(await issued(a.rt, 'OFF2')).toEqual(['OFF2']);
      await detach(bctx, 'OFF2');
      expect(await issued(a.rt, 'OFF2')).toEqual([]);
    });

    it('drops a deleted token from every node', async () => {
      await attach(a.ctx, 'OFF1');
      const id = await tokenId('OFF1');
      await readCounters(b.store);
      expect(await hasIssuingAttachment(b, id)).toBe(true);
      expect(await hasIssuingAttachment(a.rt, id)).toBe(true);
      await deleteTokens(bctx, { serial: 'OFF1' });
      // What every request that reads policies does first: a fresh read of the change counters.
      await readCounters(a.rt.store);
      expect(await hasIssuingAttachment(a.rt, id)).toBe(false);
      await readCounters(b.store);
      expect(await hasIssuingAttachment(b, id)).toBe(false);
    });

    it('hands out no set loaded before a local attach', async () => {
      const id = await tokenId('OFF1');
      // A load of the set whose rows arrive only after the attachment has committed.
      const gate = holdStatements(a.rt, /^select distinct .*from ["`]machinetoken["`]/i);
      const before = hasIssuingAttachment(a.rt, id);
      while (!gate.holding()) await sleep(5);
      gate.stop();
      await attach(a.ctx, 'OFF1');
      const after = hasIssuingAttachment(a.rt, id);
      expect(await Promise.race([after, sleep(3000).then(() => 'joined the load begun before')])).toBe(true);
      gate.release();
      expect(await before).toBe(false);
      // Nor does that load, ending last, stay in the cache.
      expect(await hasIssuingAttachment(a.rt, id)).toBe(true);
    });
  },
);
