// SMTP server definitions (/smtpserver/, reference 8.3): create or update, list with the password
// censored, delete, the test mail, and the one way other code sends a mail: through a definition
// named by its identifier (sendMailVia). privacyIDEA fires no events of these endpoints (reference
// 7.1 names none); the audit rows name the endpoint.
import type { Transaction } from 'kysely';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { type MailMessage, SmtpSendError, sendMail } from '../../gateways/smtp/index.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { CENSORED } from '../system/index.ts';
import {
  checkIdentifier,
  fieldsOf,
  mergeFields,
  rowOf,
  type SmtpServerRow,
  settingsOf,
} from './definition.ts';

/** GET /smtpserver/'s view of a definition. */
export interface SmtpServerView {
  server: string;
  port: number;
  username: string;
  /** __CENSORED__ when one is stored, else empty. */
  password: string;
  sender: string;
  tls: boolean;
  timeout: number;
  description: string;
  cacertificate: string;
}

type Reader = Runtime['store']['db'] | Transaction<Database>;

async function findRow(db: Reader, identifier: string): Promise<SmtpServerRow | undefined> {
  return db.selectFrom('smtpserver').selectAll().where('identifier', '=', identifier).executeTakeFirst();
}

function viewOf(row: SmtpServerRow): SmtpServerView {
  return {
    server: row.server,
    port: Number(row.port),
    username: row.username,
    password: row.password === '' ? '' : CENSORED,
    sender: row.sender,
    tls: Number(row.tls) === 1,
    timeout: Number(row.timeout),
    description: row.description,
    cacertificate: row.cacertificate,
  };
}

/** GET /smtpserver/[<identifier>]: identifier → definition; an identifier filters (unknown: {}). */
export async function listSmtpServers(
  rt: Runtime,
  identifier?: string,
): Promise<Record<string, SmtpServerView>> {
  let q = rt.store.db.selectFrom('smtpserver').selectAll().orderBy('identifier');
  if (identifier) q = q.where('identifier', '=', identifier);
  const out: Record<string, SmtpServerView> = {};
  for (const row of await q.execute()) out[row.identifier] = viewOf(row);
  return out;
}

export interface SavedSmtpServer {
  identifier: string;
  created: boolean;
}

/**
 * POST /smtpserver/<identifier>: creates the definition or changes the fields the request gives
 * (server required on creation; port 25, timeout 10 s, no TLS by default), in one transaction.
 */
export async function saveSmtpServer(
  ctx: Context,
  identifier: string,
  params: Readonly<Record<string, string | undefined>>,
): Promise<SavedSmtpServer> {
  checkIdentifier(identifier);
  return runTransaction(ctx.store, async (trx) => {
    const existing = await findRow(trx, identifier);
    const row = rowOf(ctx, mergeFields(fieldsOf(ctx, existing), params));
    if (existing) {
      await trx.updateTable('smtpserver').set(row).where('id', '=', existing.id).execute();
      return { identifier, created: false };
    }
    await trx
      .insertInto('smtpserver')
      .values({ identifier, ...row })
      .execute();
    return { identifier, created: true };
  });
}

/** DELETE /smtpserver/<identifier>: true; an unknown identifier is an error. */
export async function deleteSmtpServer(ctx: Context, identifier: string): Promise<true> {
  return runTransaction(ctx.store, async (trx) => {
    const row = await findRow(trx, identifier);
    if (!row) throw new ResourceNotFoundError(`The SMTP server ${identifier} does not exist.`);
    await trx.deleteFrom('smtpserver').where('id', '=', row.id).execute();
    return true as const;
  });
}

export interface SmtpTestResult {
  value: boolean;
  description: string;
}

/**
 * POST /smtpserver/send_test_email: sends a test mail to `recipient` with the request's fields over
 * those of the stored definition `identifier` (if there is one; its password is reused under the
 * destination rule). Answers whether the server took it and, if not, why; never throws for what
 * the server does.
 */
export async function testSmtpServer(
  ctx: Context,
  params: Readonly<Record<string, string | undefined>>,
): Promise<SmtpTestResult> {
  const recipient = params.recipient?.trim();
  if (!recipient) throw ParameterError.missing('recipient');
  const stored = params.identifier ? await findRow(ctx.store.db, params.identifier) : undefined;
  const settings = settingsOf(mergeFields(fieldsOf(ctx, stored), params));
  try {
    await sendMail(settings, {
      to: recipient,
      subject: 'Your TEST email from authsrv',
      body: 'This is a test email from authsrv. The configuration is working.',
      mimetype: 'plain',
    });
    return { value: true, description: `A test mail was sent to ${recipient}.` };
  } catch (e) {
    const reason = e instanceof SmtpSendError ? e.message : String(e);
    ctx.log.warn({ smtpserver: params.identifier ?? settings.server, reason }, 'SMTP test failed');
    return { value: false, description: `The test mail could not be sent: ${reason}` };
  }
}

/**
 * Sends a mail through the definition `identifier`: what e-mail tokens, the SMS provider over SMTP
 * and notifications use. Rejects with an SmtpSendError (unknown definition: reason 'failed').
 */
export async function sendMailVia(rt: Runtime, identifier: string, mail: MailMessage): Promise<void> {
  const row = await findRow(rt.store.db, identifier);
  if (!row) throw new SmtpSendError('failed', `there is no SMTP server definition '${identifier}'`);
  await sendMail(settingsOf(fieldsOf(rt, row)), mail);
}

/** The identifiers of the definitions (the CLI's and the policies' choices). */
export async function smtpServerIdentifiers(rt: Runtime): Promise<string[]> {
  const rows = await rt.store.db
    .selectFrom('smtpserver')
    .select('identifier')
    .orderBy('identifier')
    .execute();
  return rows.map((r) => r.identifier);
}
