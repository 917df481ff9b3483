// Fixtures, created through the REST API like an administrator would: a passwd resolver with the
// benchmark users, realms, tokens (OATH CSV through POST /token/load, PIN tokens through
// POST /token/init, which hashes each PIN), the challenge-response policy, two LDAP realms (HOTP
// tokens; no tokens, the LDAP password through passthru=userstore), the RADIUS client of scenario R.
// The one exception is the bulk of audit rows (insertAuditRows): written straight into the
// database with one INSERT … SELECT, since a million audited requests take far longer than the
// whole benchmark may.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.ts';
import { type Api, inParallel } from './api.ts';
import { staticPassword, tokenKey } from './otp.ts';
import { groupUser, type UserGroup } from './plan.ts';

export const PIN = '4711';
export const RESOLVER = 'benchusers';
/** Realm and resolver of the LDAP passthru scenario (7p); the passthru policy applies to it only. */
export const LDAP_PASSTHRU_REALM = 'ldappw';

/** 'none': users without a token (they log in with their password in the user store). */
export type TokenKind = 'pw' | 'spass' | 'hotp' | 'hotp-pin' | 'email' | 'none';

export interface TokenGroup extends UserGroup {
  token: TokenKind;
  /** Resolver of the users (for OATH CSV version 2 lines). */
  resolver: string;
}

/** The token groups of the scenarios, sized by `hotpTokens` (the round robin of scenario 2). */
export function tokenGroups(hotpTokens: number, ldapUsers: number): Record<string, TokenGroup> {
  const g = (prefix: string, count: number, realm: string, token: TokenKind, resolver = RESOLVER) => ({
    prefix,
    width: 5,
    count,
    realm,
    token,
    resolver,
  });
  return {
    pw: g('pw', 64, 'bench', 'pw'),
    sp: g('sp', 64, 'bench', 'spass'),
    ho: g('ho', hotpTokens, 'bench', 'hotp'),
    hp: g('hp', 64, 'bench', 'hotp-pin'),
    wr: g('wr', 500, 'bench', 'hotp'),
    cr: g('cr', 64, 'cr', 'hotp-pin'),
    // e-mail tokens without PIN (scenario 8): the PIN-only request is an empty pass, no argon2id
    em: g('em', 64, 'bench', 'email'),
    // slapd's generated users user0001 … (scripts/fixtures/slapd.ts)
    ldap: { prefix: 'user', width: 4, count: ldapUsers, realm: 'ldap', token: 'hotp', resolver: 'ldap' },
    // The same slapd users through a second resolver of the same directory: the tokens above belong
    // to (ldap, uid), so here the users have none and log in with their LDAP password (passthru).
    ldappw: {
      prefix: 'user',
      width: 4,
      count: ldapUsers,
      realm: LDAP_PASSTHRU_REALM,
      token: 'none',
      resolver: LDAP_PASSTHRU_REALM,
    },
  };
}

const serialOf = (g: TokenGroup, i: number) =>
  `BENCH-${g.prefix.toUpperCase()}${String(i + 1).padStart(6, '0')}`;

/** The passwd file of every benchmark user (no passwords: only tokens authenticate them). */
export function writePasswdFile(dir: string, groups: TokenGroup[]): string {
  const lines: string[] = [];
  let uid = 10_000;
  for (const g of groups) {
    if (g.resolver !== RESOLVER) continue;
    for (let i = 0; i < g.count; i++) {
      const login = groupUser(g, i);
      lines.push(`${login}:x:${uid}:${uid}:Bench ${login},,,,:/home/${login}:/bin/sh`);
      uid++;
    }
  }
  const file = join(dir, 'users.passwd');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

export async function createUserStores(
  api: Api,
  passwdFile: string,
  ldap: { url: string; baseDn: string; bindDn: string; bindPw: string } | undefined,
): Promise<void> {
  await api.call('POST', `/resolver/${RESOLVER}`, { type: 'passwdresolver', Filename: passwdFile });
  await api.call('POST', '/realm/bench', { resolvers: RESOLVER });
  await api.call('POST', '/realm/cr', { resolvers: RESOLVER });
  if (ldap) {
    for (const name of ['ldap', LDAP_PASSTHRU_REALM]) {
      await api.call('POST', `/resolver/${name}`, {
        type: 'ldapresolver',
        LDAPURI: ldap.url,
        LDAPBASE: ldap.baseDn,
        BINDDN: ldap.bindDn,
        BINDPW: ldap.bindPw,
        LDAPSEARCHFILTER: '(uid=*)(objectClass=inetOrgPerson)',
      });
      await api.call('POST', `/realm/${name}`, { resolvers: name });
    }
    // Only the realm of scenario 7p checks a user without token against the LDAP password.
    await api.call('POST', '/policy/bench-passthru', {
      scope: 'authentication',
      action: 'passthru=userstore',
      realm: LDAP_PASSTHRU_REALM,
      active: 'true',
    });
  }
  // Scenario 3 fails on purpose, hundreds of times per token: no token may lock meanwhile.
  await api.call('POST', '/system/setConfig', { DefaultMaxFailCount: '1000000' });
  // Only the realm `cr` answers a PIN with a challenge (scenario 4).
  await api.call('POST', '/policy/bench-cr', {
    scope: 'authentication',
    action: 'challenge_response=hotp',
    realm: 'cr',
    active: 'true',
  });
}

/** The SMTP server definition of scenario 8: the silent listener, which never greets. */
export const SILENT_SMTP = 'bench-silent';

/**
 * The SMTP server definition `bench-silent` on 127.0.0.1:`port` with `timeoutSeconds`, and the
 * system setting `email.identifier` naming it: every e-mail token mails through it.
 */
export async function createSilentSmtpServer(api: Api, port: number, timeoutSeconds: number): Promise<void> {
  await api.call('POST', `/smtpserver/${SILENT_SMTP}`, {
    server: '127.0.0.1',
    port: String(port),
    sender: 'otp@bench.example',
    timeout: String(timeoutSeconds),
    description: 'accepts connections and never answers (scenario 8)',
  });
  await api.call('POST', '/system/setConfig', { 'email.identifier': SILENT_SMTP });
}

/**
 * Scenario 9's event definition: a WebHook after every validate_check, posting the serial, user and
 * result as JSON with the tags replaced. Returns a function that deletes it again.
 */
export async function addWebhookDefinition(api: Api, url: string): Promise<() => Promise<void>> {
  const created = await api.call('POST', '/event', {
    name: 'bench-webhook',
    event: 'validate_check',
    handlermodule: 'WebHook',
    action: 'post_webhook',
    position: 'post',
    'option.URL': url,
    'option.content_type': 'application/json',
    'option.replace': 'True',
    'option.data': JSON.stringify({ serial: '{serial}', user: '{username}', realm: '{realm}' }),
  });
  const id = String(created.result.value);
  return async () => {
    await api.call('DELETE', `/event/${id}`);
  };
}

/**
 * The RADIUS scenario's NAS: the client 127.0.0.1 (the driver sends from there) with a random shared
 * secret, through POST /radiusclient/. Returns the secret.
 */
export async function addRadiusClient(api: Api): Promise<string> {
  const secret = randomBytes(18).toString('base64url');
  await api.call('POST', '/radiusclient/bench-nas', {
    address: '127.0.0.1',
    secret,
    description: 'the benchmark driver',
  });
  return secret;
}

const CSV_CHUNK = 2_000;
/** Uploads at a time: an import also waits for the database's round trips. */
const BULK_PARALLEL = 6;

/** OATH CSV version 2 (user, resolver, realm in front), uploaded in chunks. */
async function importHotp(api: Api, g: TokenGroup): Promise<void> {
  const chunks: string[][] = [];
  for (let i = 0; i < g.count; i++) {
    if (i % CSV_CHUNK === 0) chunks.push(['# version: 2']);
    const key = tokenKey(g.prefix, i).toString('hex');
    chunks
      .at(-1)!
      .push(`${groupUser(g, i)}, ${g.resolver}, ${g.realm}, ${serialOf(g, i)}, ${key}, hotp, 6, 0`);
  }
  await inParallel(chunks, 2, async (lines) => {
    const e = await api.upload(`/token/load/${g.prefix}.csv`, `${lines.join('\n')}\n`, { type: 'oathcsv' });
    const v = e.result.value as { n_imported: number; n_not_imported: number };
    if (v.n_imported !== lines.length - 1) {
      throw new Error(`token import of ${g.prefix}: ${JSON.stringify(v)} of ${lines.length - 1} lines`);
    }
  });
}

/** POST /token/init per token: the way to give a token a (hashed) PIN. */
async function initTokens(api: Api, g: TokenGroup): Promise<void> {
  const indexes = Array.from({ length: g.count }, (_, i) => i);
  await inParallel(indexes, 4, async (i) => {
    const common = { serial: serialOf(g, i), user: groupUser(g, i), realm: g.realm };
    if (g.token === 'pw') {
      await api.call('POST', '/token/init', { ...common, type: 'pw', otpkey: staticPassword(g.prefix, i) });
    } else if (g.token === 'spass') {
      await api.call('POST', '/token/init', { ...common, type: 'spass', pin: PIN });
    } else if (g.token === 'email') {
      await api.call('POST', '/token/init', {
        ...common,
        type: 'email',
        email: `${common.user}@bench.example`,
      });
    } else {
      const otpkey = tokenKey(g.prefix, i).toString('hex');
      await api.call('POST', '/token/init', { ...common, type: 'hotp', otpkey, pin: PIN });
    }
  });
}

export async function createTokens(api: Api, g: TokenGroup): Promise<void> {
  if (g.token === 'none') return;
  if (g.token === 'hotp') await importHotp(api, g);
  else await initTokens(api, g);
}

/** `count` unassigned HOTP tokens BULK0000001 …, imported as OATH CSV through POST /token/load. */
export async function createBulkTokens(api: Api, count: number): Promise<void> {
  const chunks: string[][] = [];
  for (let i = 0; i < count; i++) {
    if (i % CSV_CHUNK === 0) chunks.push([]);
    chunks
      .at(-1)!
      .push(`BULK${String(i + 1).padStart(7, '0')}, ${tokenKey('bulk', i).toString('hex')}, hotp, 6, 0`);
  }
  await inParallel(chunks, BULK_PARALLEL, async (lines) => {
    const e = await api.upload('/token/load/bulk.csv', `${lines.join('\n')}\n`, { type: 'oathcsv' });
    const v = e.result.value as { n_imported: number };
    if (v.n_imported !== lines.length) throw new Error(`bulk token import: ${JSON.stringify(v)}`);
  });
  const e = await api.call('GET', '/token/', { serial: 'BULK*', pagesize: '1' });
  const n = Number((e.result.value as { count?: number }).count);
  if (n !== count) throw new Error(`bulk token import: ${n} BULK* tokens in the store, not ${count}`);
}

/** The users the audit rows name: scenario 6 filters on one of them (about rows/AUDIT_USERS rows). */
export const AUDIT_USERS = 10_000;

/**
 * `rows` audit rows spread over the last 30 days, written with one INSERT … SELECT through the
 * project's store (not through requests: see the file comment). They carry no signature, so the
 * API shows them with sig_check FAIL; that costs the same as a good one.
 */
export async function insertAuditRows(databaseUrl: string, rows: number): Promise<void> {
  const store = await openDatabase(databaseUrl);
  try {
    const start = Date.now() / 1000 - 30 * 86_400;
    const step = (30 * 86_400) / rows;
    const cols =
      '"date", "startdate", "duration", "action", "success", "authentication", "serial", "token_type", ' +
      '"container_serial", "container_type", "user", "realm", "resolver", "administrator", ' +
      '"action_detail", "info", "node", "policies", "client", "user_agent", "user_agent_version", ' +
      '"log_level", "clearance_level", "thread_id", "signature"';
    const values = (date: string, i: string, pad: (s: string) => string) => `${date}, ${date}, 0.012,
      CASE ${i} % 4 WHEN 0 THEN 'GET /token/' WHEN 1 THEN 'POST /auth' ELSE 'POST /validate/check' END,
      CASE WHEN ${i} % 10 = 0 THEN 0 ELSE 1 END,
      CASE WHEN ${i} % 10 = 0 THEN 'REJECT' ELSE 'ACCEPT' END,
      'BENCH-HO' || ${pad(`${i} % 100000`)}, 'hotp', '', '',
      'audit' || ${pad(`${i} % ${AUDIT_USERS}`)}, 'bench', '${RESOLVER}', '', '', '', 'bench', '',
      '127.0.0.1', 'bench', '', '', '', '0', ''`;
    if (store.dialect === 'sqlite') {
      await sql
        .raw(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
           INSERT INTO audit (${cols})
           SELECT ${values(
             `strftime('%Y-%m-%dT%H:%M:%fZ', ${start} + i * ${step}, 'unixepoch')`,
             'i',
             (s) => `printf('%06d', ${s})`,
           )} FROM n`,
        )
        .execute(store.db);
    } else if (store.dialect === 'postgres') {
      await sql
        .raw(
          `INSERT INTO audit (${cols})
           SELECT ${values(
             `to_char(to_timestamp(${start} + i * ${step}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
             'i',
             (s) => `lpad((${s})::text, 6, '0')`,
           )} FROM generate_series(1, ${rows}) AS i`,
        )
        .execute(store.db);
    } else {
      throw new Error(`no bulk audit insert for ${store.dialect}`);
    }
  } finally {
    await store.close();
  }
}

/** The audit user whose rows scenario 6 asks for. */
export const AUDIT_FILTER_USER = `audit${String(4242).padStart(6, '0')}`;
