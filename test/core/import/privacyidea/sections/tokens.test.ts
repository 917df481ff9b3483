// The tokens of the privacyIDEA fixture after an import, against manifest.json: what each token
// stores (counters, fail counters, state, owner, realms, groups, tokeninfo), and that the tokens
// authenticate through authsrv's validate service with their users and PINs, once per value.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../../../../src/core/import/index.ts';
import { importPrivacyidea } from '../../../../../src/core/import/index.ts';
import { setRealm } from '../../../../../src/core/realm/index.ts';
import { saveResolver } from '../../../../../src/core/resolver/index.ts';
import { saveSmsGateway } from '../../../../../src/core/smsgateway/index.ts';
import { saveSmtpServer } from '../../../../../src/core/smtpserver/index.ts';
import {
  findToken,
  initToken,
  listTokens,
  setTokenGroup,
  tokenState,
} from '../../../../../src/core/token/index.ts';
import type { CheckInput } from '../../../../../src/core/validate/index.ts';
import { check } from '../../../../../src/core/validate/index.ts';
import { verifyPassword } from '../../../../../src/crypto/index.ts';
import { openPool } from '../../../../../src/store/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { startHttpSink } from '../../../../helpers/http-sink.ts';
import { hotp } from '../../../../helpers/otp.ts';
import { fixtureImport, PI_FIXTURE, piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import {
  AFTER_SNAPSHOT,
  fixtureDatabaseWith,
  fixtureRuntime,
  sectionReport,
  useImportedRuntime,
} from '../../../../helpers/privacyidea-import.ts';
import type { TestRuntime } from '../../../../helpers/runtime.ts';
import { startSmtpSink } from '../../../../helpers/smtp-sink.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifest entries are data
type ManifestToken = Record<string, any>;
const TOKENS = piManifest.tokens as Record<string, ManifestToken>;
const SNAPSHOT_S = Math.floor(piManifest.fixture.db_snapshot_unix_time as number);

/** Tokeninfo keys the import stores in another form (the secret, the sshkey line). */
const CONVERTED_INFO = /^(tan\.tan\d+|ssh_key|ssh_type|ssh_comment)$/;

describe.each(testDialects())('import privacyidea: tokens (%s)', (dialect) => {
  let t: TestRuntime;
  let report: ImportReport;
  useImportedRuntime(dialect, (imported) => ({ t, report } = imported));

  /** Whether a check accepts (an error, as for a revoked token, is a refusal). */
  async function accepts(input: Omit<CheckInput, 'client'>): Promise<boolean> {
    try {
      return (await check(t.rt, { ...input, client: '192.0.2.1' })).value;
    } catch {
      return false;
    }
  }

  async function detailOf(input: Omit<CheckInput, 'client'>): Promise<Record<string, unknown>> {
    const r = await check(t.rt, { ...input, client: '192.0.2.1' });
    return r.detail ?? {};
  }

  function ownerOf(serial: string): { user: string; realm: string } {
    const o = TOKENS[serial]?.owner;
    return { user: o.user, realm: o.realm };
  }

  it('imports every token, the 200 foreign SBS tokens too, and reports the PINs authsrv has no place for', () => {
    const tokens = sectionReport(report, 'tokens');
    const foreign = piManifest.foreign_objects.tokens_not_mig[0];
    expect(tokens.objects.filter((s) => s.startsWith(foreign.serial_prefix))).toHaveLength(foreign.n);
    expect(tokens.objects.filter((s) => s.startsWith('MIG')).sort()).toEqual(Object.keys(TOKENS).sort());
    expect(tokens.skipped).toEqual([
      { object: 'MIGHOTP03 user_pin', reason: 'authsrv keeps no user PIN besides the OTP PIN' },
      { object: 'MIGHOTP03 so_pin', reason: 'authsrv keeps no SO PIN' },
    ]);
    expect(tokens.conflicts).toEqual([]);
  });

  it('keeps counters, fail counters, lengths, state, owner, realms and tokeninfo', async () => {
    for (const [serial, m] of Object.entries(TOKENS)) {
      const tok = await findToken(t.rt, serial);
      expect(tok, serial).toBeDefined();
      const row = tok!.row;
      expect(
        {
          type: row.tokentype,
          description: row.description,
          otplen: row.otplen,
          count: Number(row.count),
          failcount: row.failcount,
          maxfail: row.maxfail,
          count_window: row.count_window,
          sync_window: row.sync_window,
          active: row.active === 1,
          revoked: row.revoked === 1,
          locked: row.locked === 1,
          rollout_state: row.rollout_state,
        },
        serial,
      ).toEqual({
        type: m.type,
        description: m.description,
        otplen: m.otplen,
        count: m.count_column,
        failcount: m.failcount,
        maxfail: m.maxfail,
        count_window: m.count_window,
        sync_window: m.sync_window,
        active: m.active,
        revoked: m.revoked,
        locked: m.locked,
        rollout_state: m.rollout_state,
      });
      expect(tok!.owner, serial).toEqual(
        m.owner ? { resolver: m.owner.resolver, userId: m.owner.user_id, realm: m.owner.realm } : undefined,
      );
      expect([...tok!.realms].sort(), serial).toEqual([...m.realms].sort());
      for (const [key, v] of Object.entries(
        m.tokeninfo as Record<string, { value: string; type?: string; decrypted?: string }>,
      )) {
        if (CONVERTED_INFO.test(key) || m.type === 'question') continue;
        expect(tok!.info[key], `${serial} ${key}`).toBe(v.type === 'password' ? v.decrypted : v.value);
      }
    }
  });

  it('keeps the counters and seeds of the 200 foreign SBS tokens', async () => {
    const pi = await openPool<never>(
      { dialect: 'sqlite', file: join(PI_FIXTURE, 'pi.sqlite') },
      { maxConnections: 1, sqlite: { readOnly: true, busyTimeoutMs: 1000 } },
    );
    try {
      // biome-ignore lint/suspicious/noExplicitAny: privacyIDEA's schema
      const rows = await (pi as any)
        .selectFrom('token')
        .select(['serial', 'count', 'failcount', 'otplen'])
        .where('serial', 'like', 'SBS%')
        .execute();
      expect(rows).toHaveLength(200);
      for (const r of rows as { serial: string; count: number; failcount: number; otplen: number }[]) {
        const tok = (await findToken(t.rt, r.serial))!;
        expect([Number(tok.row.count), tok.row.failcount, tok.row.otplen], r.serial).toEqual([
          r.count,
          r.failcount,
          r.otplen,
        ]);
        expect(tokenState(t.rt, tok).key().length, r.serial).toBeGreaterThanOrEqual(20);
      }
    } finally {
      await pi.destroy();
    }
  });

  it('keeps the token groups', async () => {
    const rows = await t.rt.store.db
      .selectFrom('tokengroup_token')
      .innerJoin('token', 'token.id', 'tokengroup_token.token_id')
      .innerJoin('tokengroup', 'tokengroup.id', 'tokengroup_token.tokengroup_id')
      .select(['token.serial', 'tokengroup.name'])
      .execute();
    for (const [serial, m] of Object.entries(TOKENS)) {
      const groups = rows.filter((r) => r.serial === serial).map((r) => r.name);
      expect(groups.sort(), serial).toEqual([...m.tokengroups].sort());
    }
  });

  it('keeps the SSH key, the questions and the unused TANs as authsrv stores them', async () => {
    expect((await findToken(t.rt, 'MIGSSH01'))!.info.sshkey).toBe(TOKENS.MIGSSH01!.ssh_public_key);
    const quest = await findToken(t.rt, 'MIGQUEST01');
    expect(quest!.info['What is your favourite colour?']).toBeUndefined();
    const tan = await findToken(t.rt, 'MIGTAN01');
    expect(Object.keys(tan!.info).filter((k) => k.startsWith('tan.'))).toEqual([]);
  });

  it('accepts the next HOTP values with user and PIN, once each; the fail counter of a success is reset', async () => {
    // The e-mail and SMS tokens authenticate by challenge only, which needs their SMTP server and
    // SMS gateway (sections of their own): their seeds and counters are checked above.
    for (const serial of ['MIGHOTP01', 'MIGHOTP02', 'MIGHOTP04', 'MIGHOTP06', 'MIGPAPER01']) {
      const m = TOKENS[serial]!;
      const pass = m.sample_valid_passwords[0] as string;
      const used = m.used_otps?.at(-1)?.otp as string | undefined;
      // By serial after the first: each check by user verifies the PIN of every token of the user,
      // and privacyIDEA's argon2 parameters (100 MiB, 9 passes) make each take long.
      if (used) expect(await accepts({ serial, pass: `${m.pin}${used}` }), `${serial} used`).toBe(false);
      expect(await accepts({ ...ownerOf(serial), pass }), serial).toBe(true);
      expect(await accepts({ serial, pass }), `${serial} replay`).toBe(false);
      expect((await findToken(t.rt, serial))!.row.failcount, serial).toBe(0);
    }
  });

  it('keeps the seeds of the HMAC types and the static secrets', async () => {
    for (const [serial, m] of Object.entries(TOKENS)) {
      const key = tokenState(t.rt, (await findToken(t.rt, serial))!).key();
      if (m.key_hex) expect(key.toString('hex'), serial).toBe(m.key_hex);
      else if (m.password ?? m.registration_code ?? m.secret)
        expect(key.toString('utf8'), serial).toBe(m.password ?? m.registration_code ?? m.secret);
    }
  });

  it('mails a value of MIGEMAIL01 to its address via its SMTP server and accepts it as the answer, once', async () => {
    // The SMTP server is another section's: here it points at a sink, written after the import.
    const sink = await startSmtpSink();
    try {
      await saveSmtpServer(t.ctx, 'migsmtp', {
        server: '127.0.0.1',
        port: String(sink.port),
        username: sink.user,
        password: sink.password,
        sender: 'privacyidea@mig.example',
        tls: 'True',
        timeout: '5',
        cacertificate: sink.cert,
      });
      const m = TOKENS.MIGEMAIL01!;
      const d = await detailOf({ ...ownerOf('MIGEMAIL01'), pass: m.pin });
      const mail = await sink.nextMail();
      expect(mail.to).toEqual([m.tokeninfo.email.value]);
      expect(m.sample_valid_otps.map((o: { otp: string }) => o.otp)).toContain(mail.body);
      const transactionId = d.transaction_id as string;
      expect(await accepts({ ...ownerOf('MIGEMAIL01'), transactionId, pass: mail.body })).toBe(true);
      expect(await accepts({ ...ownerOf('MIGEMAIL01'), transactionId, pass: mail.body })).toBe(false);
    } finally {
      await sink.close();
    }
  });

  it('sends a value of MIGSMS01 to its phone via its SMS gateway and accepts it as the answer, once', async () => {
    // The SMS gateway is another section's: here it points at a sink, written after the import.
    const sink = await startHttpSink();
    try {
      await saveSmsGateway(t.ctx, {
        name: 'migsmsgw',
        module: 'http',
        option: {
          URL: sink.url,
          HTTP_METHOD: 'GET',
          CHECK_SSL: 'no',
          SEND_DATA_AS_JSON: 'no',
          TIMEOUT: '3',
          text: '{otp}',
          to: '{phone}',
        },
        header: {},
        keepOmitted: false,
      });
      const m = TOKENS.MIGSMS01!;
      const d = await detailOf({ ...ownerOf('MIGSMS01'), pass: m.pin });
      const sent = new URL(sink.requests.at(-1)!.url, sink.url).searchParams;
      expect(sent.get('to')).toBe(m.tokeninfo.phone.value);
      const otp = sent.get('text') ?? '';
      expect(m.sample_valid_otps.map((o: { otp: string }) => o.otp)).toContain(otp);
      const transactionId = d.transaction_id as string;
      expect(await accepts({ ...ownerOf('MIGSMS01'), transactionId, pass: otp })).toBe(true);
      expect(await accepts({ ...ownerOf('MIGSMS01'), transactionId, pass: otp })).toBe(false);
    } finally {
      await sink.close();
    }
  });

  it('accepts the unassigned MIGHOTP03 by serial without PIN, once; counts a wrong value', async () => {
    const [first] = TOKENS.MIGHOTP03!.sample_valid_otps as { otp: string }[];
    expect(await accepts({ serial: 'MIGHOTP03', pass: '00000000' })).toBe(false);
    expect((await findToken(t.rt, 'MIGHOTP03'))!.row.failcount).toBe(1);
    expect(await accepts({ serial: 'MIGHOTP03', pass: first!.otp })).toBe(true);
    expect(await accepts({ serial: 'MIGHOTP03', pass: first!.otp })).toBe(false);
  });

  it('refuses the revoked MIGHOTP05 and the disabled MIGTOTP03', async () => {
    expect(
      await accepts({ ...ownerOf('MIGHOTP05'), pass: TOKENS.MIGHOTP05!.sample_valid_passwords[0] }),
    ).toBe(false);
    const m = TOKENS.MIGTOTP03!;
    const step = Math.floor((t.rt.clock().getTime() / 1000 + m.timeShift_seconds) / m.timestep);
    const otp = hotp(m.key_hex, step, m.otplen, m.hashlib);
    expect(await accepts({ serial: 'MIGTOTP03', pass: otp })).toBe(false);
  });

  it("accepts MIGHOTP07 with sqlbob's resolver password as its PIN (the imported policy otppin=userstore), once each", async () => {
    const m = TOKENS.MIGHOTP07!;
    const user = { user: m.owner.user, realm: m.owner.realm };
    expect(
      (await check(t.rt, { ...user, pass: `${m.pin}${m.sample_valid_otps[0].otp}`, client: '192.0.2.1' }))
        .value,
    ).toBe(false);
    for (const pass of m.sample_valid_passwords as string[]) {
      expect(await accepts({ ...user, pass }), pass).toBe(true);
      expect(await accepts({ ...user, pass }), `${pass} replay`).toBe(false);
    }
  });

  it('keeps the TOTP time steps: the last used value is refused, the next ones are accepted once', async () => {
    const at = (s: number) => t.setNow(new Date(s * 1000));
    try {
      for (const serial of ['MIGTOTP01', 'MIGTOTP02']) {
        const m = TOKENS[serial]!;
        // Just after the snapshot, the value validated last is still within the window.
        at(SNAPSHOT_S + 5);
        expect(await accepts({ serial, pass: `${m.pin}${m.validated_at.otp}` }), serial).toBe(false);
        const next = m.last_used_time_counter + 1;
        at(next * m.timestep + 1 - m.timeShift_seconds);
        const otp = hotp(m.key_hex, next, m.otplen, m.hashlib);
        expect(await accepts({ ...ownerOf(serial), pass: `${m.pin}${otp}` }), serial).toBe(true);
        expect(await accepts({ serial, pass: `${m.pin}${otp}` }), `${serial} replay`).toBe(false);
        expect(Number((await findToken(t.rt, serial))!.row.count), serial).toBe(next);
      }
    } finally {
      t.setNow(AFTER_SNAPSHOT);
    }
  });

  it('refuses MIGTOTP02 outside its validity period', async () => {
    const m = TOKENS.MIGTOTP02!;
    const at = new Date('2031-01-01T00:00:00Z');
    t.setNow(at);
    try {
      const step = Math.floor((at.getTime() / 1000 + m.timeShift_seconds) / m.timestep);
      const otp = hotp(m.key_hex, step, m.otplen, m.hashlib);
      expect(await accepts({ serial: 'MIGTOTP02', pass: `${m.pin}${otp}` })).toBe(false);
    } finally {
      t.setNow(AFTER_SNAPSHOT);
    }
  });

  it('accepts the mOTP value of now with the mOTP PIN, once', async () => {
    const m = TOKENS.MIGMOTP01!;
    const step = Math.floor(t.rt.clock().getTime() / 10_000);
    const otp = createHash('md5').update(`${step}${m.motp_secret}${m.motp_pin}`).digest('hex').slice(0, 6);
    expect(await accepts({ ...ownerOf('MIGMOTP01'), pass: `${m.pin}${otp}` })).toBe(true);
    expect(await accepts({ serial: 'MIGMOTP01', pass: `${m.pin}${otp}` })).toBe(false);
  });

  it('accepts the static tokens: spass, pw, the registration code once', async () => {
    for (const serial of ['MIGSPASS01', 'MIGPW01'])
      expect(
        await accepts({ ...ownerOf(serial), pass: TOKENS[serial]!.sample_valid_passwords[0] }),
        serial,
      ).toBe(true);
    const code = TOKENS.MIGREG01!.registration_code as string;
    expect(await accepts({ ...ownerOf('MIGREG01'), pass: code })).toBe(true);
    expect(await accepts({ serial: 'MIGREG01', pass: code })).toBe(false);
  });

  it('accepts the remaining TANs (imported as privacyIDEA hashed them) once each, not the used one', async () => {
    const m = TOKENS.MIGTAN01!;
    const used = (m.tans_all as string[]).find((x) => !m.tans_remaining.includes(x));
    const serial = 'MIGTAN01';
    expect(await accepts({ serial, pass: `${m.pin}${used}` })).toBe(false);
    for (const [i, pass] of (m.sample_valid_passwords as string[]).entries()) {
      expect(await accepts(i === 0 ? { ...ownerOf(serial), pass } : { serial, pass }), pass).toBe(true);
      expect(await accepts({ serial, pass }), `${pass} replay`).toBe(false);
    }
  });

  it('asks a question of MIGQUEST01 and accepts its answer', async () => {
    const m = TOKENS.MIGQUEST01!;
    const d = await detailOf({ ...ownerOf('MIGQUEST01'), pass: m.pin });
    const question = d.message as string;
    expect(Object.keys(m.questions)).toContain(question);
    const transactionId = d.transaction_id as string;
    expect(await accepts({ ...ownerOf('MIGQUEST01'), transactionId, pass: m.questions[question] })).toBe(
      true,
    );
  });

  it("hashes privacyIDEA's encrypted PINs (MIGHOTP06, MIGIDX01) and keeps its argon2id hashes (revoked MIGHOTP05: never re-hashed)", async () => {
    const rows = await t.rt.store.db
      .selectFrom('token')
      .select(['serial', 'pin_hash'])
      .where('serial', 'in', ['MIGHOTP06', 'MIGIDX01', 'MIGHOTP05'])
      .orderBy('serial')
      .execute();
    const hashes = Object.fromEntries(rows.map((r) => [r.serial, r.pin_hash]));
    for (const serial of ['MIGHOTP06', 'MIGIDX01']) {
      expect(hashes[serial]).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await verifyPassword(TOKENS[serial]!.pin, hashes[serial]!)).toBe(true);
    }
    expect(hashes.MIGHOTP05).toMatch(/^\$argon2id\$v=19\$m=102400,t=9,p=8\$/);
  });

  it('asks positions of MIGIDX01 (encrypted PIN) and accepts the characters', async () => {
    const m = TOKENS.MIGIDX01!;
    const d = await detailOf({ ...ownerOf('MIGIDX01'), pass: m.pin });
    const positions = /positions ([\d,]+) from/
      .exec(d.message as string)![1]!
      .split(',')
      .map(Number);
    const answer = positions.map((p) => (m.secret as string)[p - 1]).join('');
    expect(
      await accepts({ ...ownerOf('MIGIDX01'), transactionId: d.transaction_id as string, pass: answer }),
    ).toBe(true);
  });
});

describe('import privacyidea: tokens, resolvers, realms and groups authsrv already has', () => {
  it('are conflicts (resolver names compared case-insensitively): the import refuses and writes nothing', async () => {
    const t = await fixtureRuntime('sqlite');
    try {
      await initToken(t.ctx, { type: 'spass', serial: 'MIGHOTP01' });
      await saveResolver(t.ctx, 'MigPasswd', {
        type: 'passwdresolver',
        Filename: join(PI_FIXTURE, 'users.passwd'),
      });
      await setRealm(t.ctx, 'migsql', ['MigPasswd'], {});
      await setTokenGroup(t.ctx, 'miggroup2', 'mine');
      const dry = await importPrivacyidea(t.ctx, fixtureImport({ dryRun: true }));
      expect(
        Object.fromEntries(
          dry.sections.filter((s) => s.conflicts.length > 0).map((s) => [s.name, s.conflicts]),
        ),
      ).toEqual({
        resolvers: ['migpasswd'],
        realms: ['migsql'],
        tokengroups: ['miggroup2'],
        tokens: ['MIGHOTP01'],
      });
      await expect(importPrivacyidea(t.ctx, fixtureImport())).rejects.toThrow(/already holds objects/);
      expect((await listTokens(t.ctx, {})).count).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('import privacyidea: tokens authsrv cannot take', () => {
  it('are reported with the reason, and the rest is imported', async () => {
    const t = await fixtureRuntime('sqlite');
    const db = fixtureDatabaseWith(t.dataDir, [
      "UPDATE token SET tokentype = 'push' WHERE serial = 'SBS9552870000'",
      "UPDATE token SET tokentype = 'yubikey' WHERE serial = 'SBS9552870003'",
      `UPDATE token SET pin_hash = '${'a'.repeat(64)}', pin_seed = '0011223344556677' WHERE serial = 'SBS9552870001'`,
      "UPDATE token SET pin_hash = '$pbkdf2-sha512$25000$c2FsdA$aGFzaA' WHERE serial = 'SBS9552870002'",
      "INSERT INTO tokencontainer (id, type, description, serial) VALUES (1, 'generic', '', 'CONT0001')",
      'INSERT INTO tokencontainertoken (token_id, container_id) VALUES (5, 1)',
    ]);
    try {
      const report = await importPrivacyidea(t.ctx, fixtureImport({ db }));
      const tokens = sectionReport(report, 'tokens');
      expect(tokens.skipped.filter((s) => s.object.startsWith('SBS'))).toEqual([
        { object: 'SBS9552870000', reason: 'authsrv has no push token type' },
        {
          object: 'SBS9552870001',
          reason: 'its PIN is a legacy salted SHA-256 hash (pin_seed), which authsrv does not verify',
        },
        {
          object: 'SBS9552870002',
          reason:
            'its PIN is a pbkdf2-sha512 hash, which authsrv does not verify (set a new PIN after the import)',
        },
        { object: 'SBS9552870003', reason: 'its key is not 32 hex characters' },
        {
          object: 'SBS9552870004 container CONT0001',
          reason: 'authsrv has no token containers: the token is imported on its own',
        },
      ]);
      expect(tokens.objects).toHaveLength(217);
      expect((await listTokens(t.ctx, {})).count).toBe(217);
    } finally {
      await t.close();
    }
  });
});
