// POST /token/load/<filename> over HTTP (reference 3.5): multipart upload of OATH CSV, PSKC (plain
// and with a pre-shared key) and Yubikey CSV files, the {n_imported, n_not_imported} answer, the
// imported tokens logging in with their OTP values, the right importtokens, and the errors of an
// empty file (ERR905), an unknown type (ERR301) and a bad pre-shared key.
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { deletePolicy, getPolicies, setPolicy } from '../../src/core/policy/index.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type ApiResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { expectServiceError, ok, writePasswdFile } from '../helpers/user-stores.ts';

const SEED = '3132333435363738393031323334353637383930';
const KEY = Buffer.from(SEED, 'hex');

function aesEncrypt(key: Buffer, plain: Buffer): Buffer {
  const iv = randomBytes(16);
  const c = createCipheriv('aes-128-cbc', key, iv);
  return Buffer.concat([iv, c.update(plain), c.final()]);
}

/** A PSKC file with one HOTP key per serial: plain, or encrypted under `psk` with ValueMACs. */
function pskc(serials: string[], psk?: Buffer, badMac?: string): string {
  const macKey = randomBytes(20);
  const cipher = (b64: string) =>
    `<xenc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/><xenc:CipherData><xenc:CipherValue>${b64}</xenc:CipherValue></xenc:CipherData>`;
  const secret = (serial: string) => {
    if (!psk) return `<PlainValue>${KEY.toString('base64')}</PlainValue>`;
    const enc = aesEncrypt(psk, KEY);
    const mac = createHmac('sha1', serial === badMac ? randomBytes(20) : macKey)
      .update(enc)
      .digest('base64');
    return `<EncryptedValue>${cipher(enc.toString('base64'))}</EncryptedValue><ValueMAC>${mac}</ValueMAC>`;
  };
  return `<?xml version="1.0" encoding="UTF-8"?>
<pskc:KeyContainer Version="1.0" xmlns:pskc="urn:ietf:params:xml:ns:keyprov:pskc"
    xmlns:ds="http://www.w3.org/2000/09/xmldsig#" xmlns:xenc="http://www.w3.org/2001/04/xmlenc#">
  ${
    psk
      ? `<pskc:EncryptionKey><ds:KeyName>Pre-shared-key</ds:KeyName></pskc:EncryptionKey>
  <pskc:MACMethod Algorithm="http://www.w3.org/2000/09/xmldsig#hmac-sha1"><pskc:MACKey>${cipher(
    aesEncrypt(psk, macKey).toString('base64'),
  )}</pskc:MACKey></pskc:MACMethod>`
      : ''
  }
  ${serials
    .map(
      (serial) => `<pskc:KeyPackage>
    <pskc:DeviceInfo><pskc:Manufacturer>Feitian</pskc:Manufacturer><pskc:SerialNo>${serial}</pskc:SerialNo></pskc:DeviceInfo>
    <pskc:Key Id="${serial}" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:hotp">
      <pskc:AlgorithmParameters><pskc:ResponseFormat Length="6" Encoding="DECIMAL"/></pskc:AlgorithmParameters>
      <pskc:Data><pskc:Secret>${secret(serial)}</pskc:Secret><pskc:Counter><pskc:PlainValue>0</pskc:PlainValue></pskc:Counter></pskc:Data>
    </pskc:Key>
  </pskc:KeyPackage>`,
    )
    .join('\n')}
</pskc:KeyContainer>`;
}

describe.each(testDialects())('POST /token/load on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  beforeAll(async () => {
    s = await startTestServer({ dialect });
    op = withCaller(s.rt, localOperator());
    admin = await s.adminToken();
    const file = await writePasswdFile(s.dataDir, 'passwd', [
      { login: 'alice', password: 'alicepw', uid: 1001 },
    ]);
    ok(await s.call('POST', '/resolver/res1', { type: 'passwdresolver', Filename: file }, admin));
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'res1' }, admin));
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'res1' }, admin));
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    for (const name of Object.keys(await getPolicies(s.rt))) await deletePolicy(op, name);
    for (const t of await s.rt.store.db.selectFrom('token').select('serial').execute())
      ok(await s.call('DELETE', `/token/${t.serial}`, {}, admin));
  });

  async function load(
    content: string,
    fields: Record<string, string>,
    filename = 'tokens.txt',
    token = admin,
  ): Promise<ApiResponse> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([content], { type: 'text/plain' }), filename);
    const res = await fetch(`${s.url}/token/load/${filename}`, {
      method: 'POST',
      headers: { Authorization: token, Accept: 'application/json' },
      body: form,
    });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: JSON.parse(text) };
  }

  const get = async (serial: string) => ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0];
  const check = async (serial: string, pass: string) =>
    ok(await s.call('POST', '/validate/check', { serial, pass }));

  it('imports OATH CSV: hotp 6/8 with counter, totp 30/60, comments; a bad line is not imported', async () => {
    const file = [
      '# hardware tokens, batch 7',
      `OATH01, ${SEED}, hotp, 6, 3`,
      `OATH02, ${SEED}, hotp, 8`,
      '',
      `TOTP01, ${SEED}, totp, 6, 30`,
      `TOTP02, ${SEED}, totp, 8, 60`,
      'BROKEN, xyz, hotp',
    ].join('\n');
    const r = await load(file, { type: 'OATH CSV', tokenrealms: 'realm1' });
    expect(r.status).toBe(200);
    expect(ok(r)).toEqual({ n_imported: 4, n_not_imported: 1 });
    const t1 = await get('OATH01');
    expect(t1).toMatchObject({
      tokentype: 'hotp',
      description: 'imported',
      otplen: 6,
      count: 3,
      realms: ['realm1'],
      info: { tokenkind: 'hardware', hashlib: 'sha1' },
    });
    expect(await get('OATH02')).toMatchObject({ otplen: 8, count: 0 });
    expect(await get('TOTP02')).toMatchObject({ tokentype: 'totp', otplen: 8, info: { timeStep: '60' } });
    expect(await get('BROKEN')).toBeUndefined();
    // The imported HOTP token logs in with the value of its counter, and only once.
    expect(await check('OATH01', hotpValue(KEY, 3, 6))).toBe(true);
    expect(await check('OATH01', hotpValue(KEY, 3, 6))).toBe(false);
    expect(await check('OATH02', hotpValue(KEY, 0, 8))).toBe(true);
  });

  it('imports OATH CSV version 2 with the owner of each line', async () => {
    const r = await load(`# version: 2\nalice, res1, realm1, OWN01, ${SEED}, hotp, 6\n`, { type: 'oathcsv' });
    expect(ok(r)).toEqual({ n_imported: 1, n_not_imported: 0 });
    expect(await get('OWN01')).toMatchObject({ username: 'alice', user_realm: 'realm1', realms: ['realm1'] });
    expect(
      ok(
        await s.call('POST', '/validate/check', {
          user: 'alice',
          realm: 'realm1',
          pass: hotpValue(KEY, 0, 6),
        }),
      ),
    ).toBe(true);
  });

  it('imports PSKC with plain secrets and with a pre-shared key', async () => {
    expect(ok(await load(pskc(['PSKC01', 'PSKC02']), { type: 'pskc' }))).toEqual({
      n_imported: 2,
      n_not_imported: 0,
    });
    expect(await get('PSKC01')).toMatchObject({ description: 'Feitian', info: { tokenkind: 'hardware' } });
    const psk = randomBytes(16);
    const enc = pskc(['PSKC03', 'PSKC04'], psk);
    expect(ok(await load(enc, { type: 'pskc', psk: psk.toString('hex'), tokenrealms: 'realm2' }))).toEqual({
      n_imported: 2,
      n_not_imported: 0,
    });
    expect(await get('PSKC03')).toMatchObject({ realms: ['realm2'] });
    expect(await check('PSKC03', hotpValue(KEY, 0, 6))).toBe(true);
  });

  it('a wrong pre-shared key or MAC imports nothing (check_fail_hard) or skips the token (check_fail_soft)', async () => {
    const psk = randomBytes(16);
    const wrong = Buffer.alloc(16, 1).toString('hex');
    const file = pskc(['MAC01', 'MAC02'], psk, 'MAC02');
    expect(ok(await load(pskc(['MAC00'], psk), { type: 'pskc', psk: wrong }))).toEqual({
      n_imported: 0,
      n_not_imported: 1,
    });
    expect(ok(await load(file, { type: 'pskc', psk: psk.toString('hex') }))).toEqual({
      n_imported: 0,
      n_not_imported: 2,
    });
    expect(
      ok(await load(file, { type: 'pskc', psk: psk.toString('hex'), pskcValidateMAC: 'check_fail_soft' })),
    ).toEqual({ n_imported: 1, n_not_imported: 1 });
    expect(await get('MAC01')).toBeDefined();
    expect(await get('MAC02')).toBeUndefined();
    expectServiceError(await load(file, { type: 'pskc' }), 301, /no pre-shared key or password is given/);
    expectServiceError(
      await load(file, { type: 'pskc', psk: 'abcd' }),
      301,
      'The Pre Shared Key must be 128 Bit hex encoded. It must be 32 characters long!',
    );
  });

  it('Yubikey CSV: OATH-HOTP lines become hotp tokens, Yubico OTP lines yubikey tokens', async () => {
    const file = [
      'Yubico OTP,12/11/2013 11:10,1,vvgutbiedkvi,ab86c04de6a3,d26a7c0f85fdda28bd816e406342b214,,,0,0,0,0,0,0,0,0,0,0',
      `508326,,0,${SEED},,2013-12-12T08:41:07,`,
    ].join('\n');
    expect(ok(await load(file, { type: 'Yubikey CSV' }))).toEqual({ n_imported: 2, n_not_imported: 0 });
    expect(await get('UBOM508326_X')).toMatchObject({ tokentype: 'hotp', otplen: 6 });
    const yubi = (
      await s.rt.store.db
        .selectFrom('token')
        .select(['serial', 'tokentype', 'otplen'])
        .where('tokentype', '=', 'yubikey')
        .execute()
    )[0];
    expect(yubi).toMatchObject({ otplen: 44 });
  });

  it('empty file → ERR905, unknown type → ERR301, missing type → ERR905', async () => {
    expectServiceError(await load('', { type: 'oathcsv' }), 905, 'Error loading token file. File empty!');
    expectServiceError(
      await load('x', { type: 'csv' }),
      301,
      "Unknown file type: 'csv'. Supported file types are: aladdin-xml, oathcsv, OATH CSV, yubikeycsv, Yubikey CSV, pskc",
    );
    expectServiceError(await load('x', {}), 905, "Missing parameter: 'type'");
    expectServiceError(await load('<a>', { type: 'pskc' }), 301, /not well-formed XML/);
  });

  it('needs the admin right importtokens (for every target realm)', async () => {
    await setPolicy(op, 'lister', { scope: 'admin', action: 'tokenlist, delete', adminuser: 'admin' });
    expectServiceError(
      await load(`NOPE, ${SEED}\n`, { type: 'oathcsv' }),
      303,
      'Admin actions are defined, but the action importtokens is not allowed!',
    );
    await setPolicy(op, 'importer', {
      scope: 'admin',
      action: 'importtokens',
      realm: 'realm1',
      adminuser: 'admin',
    });
    expect(ok(await load(`YES, ${SEED}\n`, { type: 'oathcsv', tokenrealms: 'realm1' }))).toEqual({
      n_imported: 1,
      n_not_imported: 0,
    });
    expectServiceError(await load(`NOPE, ${SEED}\n`, { type: 'oathcsv', tokenrealms: 'realm1,realm2' }), 303);
    expect(await get('NOPE')).toBeUndefined();
    // The audit row names the file and the counts.
    const rows = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'info', 'serial', 'success'])
      .where('action', '=', 'POST /token/load/<filename>')
      .execute();
    expect(
      rows.some((a) => a.success === 1 && a.serial === 'YES' && a.info.includes('oathcsv, tokens.txt')),
    ).toBe(true);
  });
});
