// The Token event handler module over HTTP (reference 7.1 "Token"): the actions beyond the simple
// attribute setters, each observed on the token itself as the API reads it back: a random PIN that
// authenticates (and its {pin} tag for a later definition), the fail counter set and changed, a
// tokeninfo value increased and one written with {now} tags, token groups, a machine attachment,
// and tokens enrolled for the request's user or for nobody; bad options refused, nothing stored.
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const NOW = new Date('2026-06-15T12:00:00Z');

describe.each(testDialects())('the Token event handler on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });

  useTokenServer(
    dialect,
    {
      logger,
      clock: () => NOW,
      realms: { realm1: [pwUser('alice', 1001, 'Alice Liddell,,+49 170 1234567,,alice@wonderland.example')] },
      reset: ['policies', 'tokengroups', 'tokens', 'audit'],
    },
    (t) => ({ s, admin } = t),
  );
  beforeAll(async () => {
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'realm1-res' }, admin));
  });
  afterEach(async () => {
    for (const d of ok(await s.call('GET', '/event/', {}, admin)) as { id: number }[]) {
      ok(await s.call('DELETE', `/event/${d.id}`, {}, admin));
    }
    lines.length = 0;
  });

  const tokenAction = (
    action: string,
    options: Record<string, string> = {},
    extra: Record<string, string> = {},
  ) => ({
    name: action,
    event: 'token_set',
    handlermodule: 'Token',
    action,
    ...Object.fromEntries(Object.entries(options).map(([k, v]) => [`option.${k}`, v])),
    ...extra,
  });
  const save = async (fields: Record<string, string>) =>
    ok(await s.call('POST', '/event', fields, admin)) as number;
  /** POST /token/set on a token: the event token_set names it. */
  const touch = async (serial: string) =>
    ok(await s.call('POST', '/token/set', { serial, description: 'touched' }, admin));
  const token = async (serial: string) => ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0];
  const eventRuns = () =>
    s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'action_detail'])
      .where('action', 'like', 'POST-EVENT%')
      .orderBy('id')
      .execute();
  const init = async (params: Record<string, string>) =>
    ok(await s.call('POST', '/token/init', params, admin));

  it('sets a random PIN that authenticates, hashed, with {pin} for the definitions after it', async () => {
    await init({ type: 'spass', serial: 'RP1', pin: 'old' });
    await save(tokenAction('set random pin', { length: '12' }));
    await save({
      name: 'tell',
      event: 'token_set',
      handlermodule: 'Logging',
      action: 'logging',
      ordering: '1',
      'option.message': 'new pin {pin}',
    });
    await touch('RP1');
    const message = lines.map((l) => String(l.msg)).find((m) => m.startsWith('new pin '));
    const pin = message?.slice('new pin '.length) ?? '';
    expect(pin).toMatch(/^[A-Za-z0-9]{12}$/);
    // The spass token's pass is its PIN: the new one works, the old one no more.
    expect(ok(await s.call('POST', '/validate/check', { serial: 'RP1', pass: pin }))).toBe(true);
    expect(ok(await s.call('POST', '/validate/check', { serial: 'RP1', pass: 'old' }))).toBe(false);
    const row = await s.rt.store.db
      .selectFrom('token')
      .select('pin_hash')
      .where('serial', '=', 'RP1')
      .executeTakeFirst();
    expect(row?.pin_hash).not.toContain(pin);
    // Nothing written to the audit log shows the PIN.
    const rows = await s.rt.store.db.selectFrom('audit').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(pin);
  });

  it('sets and changes the fail counter, never below 0', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'FC1' });
    await save(tokenAction('set failcounter', { 'fail counter': '5' }));
    await save(tokenAction('change failcounter', { 'change fail counter': '-2' }, { ordering: '1' }));
    await touch('FC1');
    expect((await token('FC1')).failcount).toBe(3);
    for (const d of ok(await s.call('GET', '/event/', {}, admin)) as { id: number }[]) {
      ok(await s.call('DELETE', `/event/${d.id}`, {}, admin));
    }
    await save(tokenAction('change failcounter', { 'change fail counter': '+1' }));
    await touch('FC1');
    expect((await token('FC1')).failcount).toBe(4);
    await save(tokenAction('change failcounter', { 'change fail counter': '-10' }));
    await touch('FC1');
    expect((await token('FC1')).failcount).toBe(0);
  });

  it('increases a tokeninfo value and sets one with {now} tags', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'TI1' });
    const once = await save(tokenAction('increase tokeninfo', { key: 'hits' }));
    await touch('TI1');
    await touch('TI1');
    expect((await token('TI1')).info.hits).toBe('2');
    ok(await s.call('DELETE', `/event/${once}`, {}, admin));
    await save(tokenAction('increase tokeninfo', { key: 'hits', increment: '-5' }));
    await save(
      tokenAction(
        'set tokeninfo',
        { key: 'touched', value: '{now}-1d from {client_ip}, {action}' },
        { ordering: '1' },
      ),
    );
    await save(tokenAction('set description', { description: 'until {now}+2h' }, { ordering: '2' }));
    await touch('TI1');
    const t = await token('TI1');
    expect(t.info.hits).toBe('-3');
    // {action} is no tag of set tokeninfo (as in privacyIDEA): it stays.
    expect(t.info.touched).toBe('2026-06-14 12:00:00.000000+0000 from 127.0.0.1, {action}');
    expect(t.description).toBe('until 2026-06-15 14:00:00.000000+0000');
  });

  it('adds the token to a token group and removes it', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'TG1' });
    ok(await s.call('POST', '/tokengroup/blue', { description: 'blue ones' }, admin));
    const add = await save(tokenAction('add tokengroup', { tokengroup: 'blue' }));
    await touch('TG1');
    expect((await token('TG1')).tokengroup).toEqual(['blue']);
    ok(await s.call('DELETE', `/event/${add}`, {}, admin));
    const remove = await save(tokenAction('remove tokengroup', { tokengroup: 'blue' }));
    await touch('TG1');
    expect((await token('TG1')).tokengroup).toEqual([]);
    ok(await s.call('DELETE', `/event/${remove}`, {}, admin));
    // An unknown group: the run fails, audited; the request is answered all the same.
    await save(tokenAction('add tokengroup', { tokengroup: 'nope' }));
    await touch('TG1');
    expect((await eventRuns()).map((r) => [r.action, r.success])).toEqual([
      ['POST-EVENT token_set>>Token:add tokengroup', 1],
      ['POST-EVENT token_set>>Token:remove tokengroup', 1],
      ['POST-EVENT token_set>>Token:add tokengroup', 0],
    ]);
  });

  it('attaches the token for an application, with its options', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'AT1' });
    await save(tokenAction('attach application', { application: 'offline', count: '7', rounds: '3' }));
    await touch('AT1');
    const listed = ok(await s.call('GET', '/machine/token', { serial: 'AT1' }, admin));
    const records = (Array.isArray(listed) ? listed : listed.tokens) as Record<string, unknown>[];
    expect(records).toEqual([
      expect.objectContaining({
        serial: 'AT1',
        application: 'offline',
        machine_id: null,
        options: expect.objectContaining({ count: '7', rounds: '3' }),
      }),
    ]);
  });

  it("enrolls a token for the request's user, and one for nobody", async () => {
    await init({ type: 'spass', serial: 'EN0', user: 'alice', realm: 'realm1' });
    await save(
      tokenAction('enroll', {
        tokentype: 'hotp',
        user: 'True',
        realm: 'realm2',
        additional_params: JSON.stringify({ description: 'made by an event', otplen: 8 }),
      }),
    );
    await save(
      tokenAction('enroll', { tokentype: 'sms', user: '1', sms_identifier: 'gw1' }, { ordering: '1' }),
    );
    await save(tokenAction('enroll', { tokentype: 'spass', realm: 'realm2' }, { ordering: '2' }));
    await touch('EN0');
    const all = ok(await s.call('GET', '/token/', {}, admin)).tokens as {
      tokentype: string;
      serial: string;
      realms: string[];
      info: Record<string, string>;
    }[];
    const hotp = all.find((t) => t.tokentype === 'hotp');
    expect(hotp).toMatchObject({
      username: 'alice',
      user_realm: 'realm1',
      description: 'made by an event',
      otplen: 8,
    });
    expect([...(hotp?.realms ?? [])].sort()).toEqual(['realm1', 'realm2']);
    const sms = all.find((t) => t.tokentype === 'sms');
    expect(sms).toMatchObject({ username: 'alice' });
    expect(sms?.info).toMatchObject({ phone: '+49 170 1234567', 'sms.identifier': 'gw1' });
    const spass = all.filter((t) => t.tokentype === 'spass' && t.serial !== 'EN0');
    expect(spass).toHaveLength(1);
    expect(spass[0]).toMatchObject({ username: '', realms: ['realm2'] });
    expect((await eventRuns()).map((r) => r.success)).toEqual([1, 1, 1]);
  });

  it('fails, audited, to enroll for a user when the request names none', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'EN1' });
    await save(tokenAction('enroll', { tokentype: 'hotp', user: 'True' }));
    await touch('EN1');
    expect((await eventRuns()).map((r) => r.success)).toEqual([0]);
    expect(ok(await s.call('GET', '/token/', {}, admin)).count).toBe(1);
  });

  it('lists the actions with their options', async () => {
    const actions = ok(await s.call('GET', '/event/actions/Token', {}, admin));
    expect(Object.keys(actions)).toEqual(
      expect.arrayContaining([
        'set random pin',
        'enroll',
        'set failcounter',
        'change failcounter',
        'increase tokeninfo',
        'set tokeninfo',
        'add tokengroup',
        'remove tokengroup',
        'attach application',
      ]),
    );
    expect(actions['set random pin'].length).toMatchObject({ type: 'int', required: true });
    expect(actions['attach application'].application).toMatchObject({ value: ['ssh', 'offline', 'luks'] });
    expect(actions.enroll.tokentype).toMatchObject({ required: true });
  });

  it('refuses malformed options, storing nothing', async () => {
    const bad: [string, Record<string, string>, RegExp][] = [
      ['set random pin', { length: 'abc' }, /length must be an integer/],
      ['set random pin', { length: '0' }, /length must be an integer from 1/],
      ['set random pin', {}, /needs the option length/],
      ['set failcounter', { 'fail counter': '-1' }, /fail counter must be an integer/],
      ['change failcounter', { 'change fail counter': 'up' }, /like \+1 or -2/],
      ['increase tokeninfo', { key: 'k', increment: '1.5' }, /increment must be an integer/],
      ['attach application', { application: 'vpn' }, /one of ssh, offline, luks/],
      ['attach application', { application: 'offline', count: 'many' }, /count must be an integer/],
      ['enroll', { tokentype: 'hotp', additional_params: '[1]' }, /additional_params must be a JSON object/],
      [
        'enroll',
        { tokentype: 'hotp', additional_params: '{nope' },
        /additional_params must be a JSON object/,
      ],
      ['enroll', { user: 'True' }, /needs the option tokentype/],
      ['add tokengroup', {}, /needs the option tokengroup/],
    ];
    for (const [action, options, message] of bad)
      expectServiceError(await s.call('POST', '/event', tokenAction(action, options), admin), 905, message);
    expect(await s.rt.store.db.selectFrom('eventhandler').selectAll().execute()).toEqual([]);
  });
});
