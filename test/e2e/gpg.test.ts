// GnuPG keys and PGP-encrypted token files over HTTP (issue 21, reference 8.1): keys made by
// Debian's gpg, the private key imported sealed, GET /system/gpgkeys listing its public key, OATH
// CSV and PSKC files encrypted with `gpg --encrypt --armor` arriving as tokens through POST
// /token/load, and a file for another key or a broken message refused with nothing imported.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { importGpgKey, listImportedKeys } from '../../src/core/gpg/index.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type GnupgHome, gnupgHome } from '../helpers/gnupg.ts';
import { type ApiResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { pskcFile, SEED } from '../helpers/token-files.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const KEY = Buffer.from(SEED, 'hex');
const SITE = 'Token site <tokens@example.org>';
const PROTECTED = 'Protected site <protected@example.org>';
const OTHER = 'Someone else <other@example.org>';
const PASSPHRASE = 'Pass-Phrase-42';

let g: GnupgHome;
let site: { keyid: string; fingerprint: string };
let prot: { keyid: string; fingerprint: string };
let siteArmor: string;
let protArmor: string;
let signOnlyArmor: string;
let publicArmor: string;

beforeAll(() => {
  g = gnupgHome();
  site = g.generate(SITE);
  prot = g.generate(PROTECTED, PASSPHRASE);
  g.generate(OTHER);
  siteArmor = g.exportSecret(SITE);
  protArmor = g.exportSecret(PROTECTED, PASSPHRASE);
  g.generate('Signer <signer@example.org>', '', 'ed25519', 'sign');
  signOnlyArmor = g.exportSecret('Signer <signer@example.org>');
  publicArmor = g.exportPublic(SITE);
}, 180_000);
afterAll(() => g?.close());

describe.each(testDialects())('GnuPG keys and encrypted token files on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  beforeAll(async () => {
    s = await startTestServer({ dialect });
    op = withCaller(s.rt, localOperator());
    admin = await s.adminToken();
  });
  afterAll(async () => s?.close());
  afterEach(async () => {
    for (const t of await s.rt.store.db.selectFrom('token').select('serial').execute())
      ok(await s.call('DELETE', `/token/${t.serial}`, {}, admin));
  });

  async function load(content: string, fields: Record<string, string>): Promise<ApiResponse> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([content], { type: 'application/pgp-encrypted' }), 'tokens.asc');
    const res = await fetch(`${s.url}/token/load/tokens.asc`, {
      method: 'POST',
      headers: { Authorization: admin, Accept: 'application/json' },
      body: form,
    });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: JSON.parse(text) };
  }
  const tokenCount = async () => (await s.rt.store.db.selectFrom('token').select('serial').execute()).length;

  it('lists no keys before one is imported, and refuses an encrypted file then', async () => {
    expect(ok(await s.call('GET', '/system/gpgkeys', {}, admin))).toEqual({});
    const file = g.encrypt(`GPG00, ${SEED}, hotp, 6\n`, SITE);
    expectServiceError(await load(file, { type: 'oathcsv' }), 905, /no imported GnuPG private key matches/);
    expect(await tokenCount()).toBe(0);
  });

  it('imports private keys sealed (with and without a passphrase) and lists their public keys', async () => {
    const stored = await importGpgKey(op, siteArmor, undefined);
    expect(stored).toMatchObject({ keyid: site.keyid, fingerprint: site.fingerprint, userids: [SITE] });
    // A protected key needs its passphrase; a wrong one stores nothing.
    await expect(importGpgKey(op, protArmor, undefined)).rejects.toThrow(/protected by a passphrase/);
    await expect(importGpgKey(op, protArmor, 'wrong')).rejects.toThrow(/passphrase does not unlock/);
    await expect(importGpgKey(op, 'not a key', undefined)).rejects.toThrow(
      /no ASCII-armored PGP private key/,
    );
    // A public key is no private key; a key that can only sign cannot decrypt token files.
    await expect(importGpgKey(op, publicArmor, undefined)).rejects.toThrow(
      /no ASCII-armored PGP private key/,
    );
    await expect(importGpgKey(op, signOnlyArmor, undefined)).rejects.toThrow(/cannot decrypt anything/);
    expect((await listImportedKeys(op)).map((k) => k.keyid)).toEqual([site.keyid]);
    await importGpgKey(op, protArmor, PASSPHRASE);
    // Importing the same key again replaces it.
    await importGpgKey(op, siteArmor, undefined);
    expect((await listImportedKeys(op)).map((k) => k.keyid).sort()).toEqual([site.keyid, prot.keyid].sort());

    // At rest: sealed by the security module, no armored private key in the database.
    const rows = await s.rt.store.db.selectFrom('gpgkey').select(['keyid', 'private_key']).execute();
    for (const r of rows) {
      expect(r.private_key).not.toContain('PRIVATE KEY');
      expect(s.rt.hsm.decrypt(r.private_key)).toMatch(/^-----BEGIN PGP PRIVATE KEY BLOCK-----/);
    }

    const r = await s.call('GET', '/system/gpgkeys', {}, admin);
    expect(r.status).toBe(200);
    const value = ok(r);
    expect(Object.keys(value).sort()).toEqual([site.keyid, prot.keyid].sort());
    expect(value[site.keyid].fingerprint).toBe(site.fingerprint);
    expect(value[site.keyid].armor).toMatch(
      /^-----BEGIN PGP PUBLIC KEY BLOCK-----[\s\S]+-----END PGP PUBLIC KEY BLOCK-----/,
    );
    expect(r.text).not.toContain('PRIVATE KEY');
  });

  it('imports an OATH CSV file encrypted by gpg, and the tokens log in', async () => {
    const file = g.encrypt(`GPG01, ${SEED}, hotp, 6\nGPG02, ${SEED}, totp, 8, 30\n`, SITE);
    expect(file).toMatch(/^-----BEGIN PGP MESSAGE-----/);
    const r = await load(file, { type: 'OATH CSV' });
    expect(ok(r)).toEqual({ n_imported: 2, n_not_imported: 0 });
    expect(ok(await s.call('POST', '/validate/check', { serial: 'GPG01', pass: hotpValue(KEY, 0, 6) }))).toBe(
      true,
    );
    const t = ok(await s.call('GET', '/token/', { serial: 'GPG02' }, admin)).tokens[0];
    expect(t).toMatchObject({ tokentype: 'totp', otplen: 8 });
  });

  it('imports a PSKC file encrypted to the passphrase-protected key', async () => {
    const pskc = pskcFile([{ serial: 'GPGPSKC1', type: 'hotp', secret: SEED, plain: true }]);
    const r = await load(g.encrypt(pskc, PROTECTED), { type: 'pskc' });
    expect(ok(r)).toEqual({ n_imported: 1, n_not_imported: 0 });
    expect(ok(await s.call('GET', '/token/', { serial: 'GPGPSKC1' }, admin)).tokens[0]).toMatchObject({
      tokentype: 'hotp',
    });
  });

  it('decrypts a file for a hidden recipient (gpg --throw-keyids) with the imported keys', async () => {
    const r = await load(g.encrypt(`GPGHID1, ${SEED}, hotp, 6\n`, PROTECTED, true), { type: 'oathcsv' });
    expect(ok(r)).toEqual({ n_imported: 1, n_not_imported: 0 });
    const other = g.encrypt(`GPGHID2, ${SEED}, hotp, 6\n`, OTHER, true);
    expectServiceError(await load(other, { type: 'oathcsv' }), 905, /could not be decrypted/);
    expect(await tokenCount()).toBe(1);
  });

  it('refuses a file for a key not imported, and a broken message: a clear error, nothing imported', async () => {
    const other = g.encrypt(`GPG03, ${SEED}, hotp, 6\n`, OTHER);
    expectServiceError(await load(other, { type: 'oathcsv' }), 905, /no imported GnuPG private key matches/);
    const garbage = '-----BEGIN PGP MESSAGE-----\n\nbm90IGEgbWVzc2FnZQ==\n=AAAA\n-----END PGP MESSAGE-----\n';
    expectServiceError(await load(garbage, { type: 'oathcsv' }), 905, /no readable PGP message/);
    // A message whose encrypted data was cut short does not decrypt.
    const lines = g.encrypt(`GPG04, ${SEED}, hotp, 6\n`, SITE).split('\n');
    const body = lines.filter((l) => /^[A-Za-z0-9+/=]+$/.test(l) && !l.startsWith('='));
    const cut = `-----BEGIN PGP MESSAGE-----\n\n${body.join('\n').slice(0, -40)}\n-----END PGP MESSAGE-----\n`;
    expectServiceError(await load(cut, { type: 'oathcsv' }), 905);
    expect(await tokenCount()).toBe(0);
  });
});
