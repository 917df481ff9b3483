// Sending one mail through an SMTP server with nodemailer (reference 8.3). A definition's `tls`
// asks for STARTTLS on a plain port, and port 465 is implicit TLS (privacyIDEA's SMTP_SSL), so both
// are covered. Every wait on the server is bounded by the definition's timeout: connecting, the
// greeting, each later read, and the whole exchange, so a dead or slow server costs its own request
// at most that long and never holds the event loop (nodemailer is fully asynchronous).
import { isIP } from 'node:net';
import { createTransport } from 'nodemailer';

/** An SMTP server definition in clear, as the gateway uses it. */
export interface SmtpServerSettings {
  server: string;
  port: number;
  /** Empty: no authentication. */
  username: string;
  password: string;
  /** The From address. */
  sender: string;
  /** STARTTLS required (ignored on port 465, which is implicit TLS anyway). */
  tls: boolean;
  /** Seconds. */
  timeout: number;
  /** PEM CA certificate(s) the server's certificate must chain to; empty: the system's CAs. */
  cacertificate: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  body: string;
  /** The body's MIME type: text/plain or text/html. */
  mimetype: 'plain' | 'html';
}

/** Why a mail could not be sent, as send_test_email and the logs name it. */
export type SmtpFailureReason =
  | 'connection refused'
  | 'timeout'
  | 'authentication failed'
  | 'TLS failure'
  | 'rejected'
  | 'failed';

/** A mail that could not be sent: the reason, and the server's or the socket's words. */
export class SmtpSendError extends Error {
  readonly reason: SmtpFailureReason;
  constructor(reason: SmtpFailureReason, detail: string) {
    super(`${reason}: ${detail}`);
    this.name = 'SmtpSendError';
    this.reason = reason;
  }
}

/** The port of implicit TLS (SMTPS). */
const IMPLICIT_TLS_PORT = 465;

function transportOf(s: SmtpServerSettings) {
  const ms = Math.max(1, s.timeout) * 1000;
  const implicit = s.port === IMPLICIT_TLS_PORT;
  return createTransport({
    host: s.server,
    port: s.port,
    secure: implicit,
    // tls=false means plain SMTP, as in privacyIDEA: no opportunistic STARTTLS that could fail on
    // a certificate nobody asked to check.
    requireTLS: s.tls && !implicit,
    ignoreTLS: !s.tls && !implicit,
    auth: s.username !== '' ? { user: s.username, pass: s.password } : undefined,
    connectionTimeout: ms,
    greetingTimeout: ms,
    socketTimeout: ms,
    dnsTimeout: ms,
    tls: {
      // SNI carries host names only (RFC 6066); an IP address is checked against the certificate anyway.
      ...(isIP(s.server) === 0 ? { servername: s.server } : {}),
      ...(s.cacertificate.trim() !== '' ? { ca: s.cacertificate } : {}),
    },
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_SSL|ERR_TLS|EPROTO|HOSTNAME|ALTNAME/i;

/** nodemailer's error as one of the reasons send_test_email names. */
export function failureOf(e: unknown): SmtpSendError {
  if (e instanceof SmtpSendError) return e;
  const err = e as { code?: string; message?: string; responseCode?: number; cause?: { code?: string } };
  const message = err.message ?? String(e);
  const codes = `${err.code ?? ''} ${err.cause?.code ?? ''} ${message}`;
  if (err.code === 'EAUTH') return new SmtpSendError('authentication failed', message);
  if (/ECONNREFUSED/.test(codes)) return new SmtpSendError('connection refused', message);
  if (err.code === 'ETLS' || TLS_CODES.test(codes) || /STARTTLS|TLS|certificate/i.test(message))
    return new SmtpSendError('TLS failure', message);
  if (/ETIMEDOUT|timeout|timed out/i.test(codes)) return new SmtpSendError('timeout', message);
  if (err.responseCode !== undefined) return new SmtpSendError('rejected', message);
  return new SmtpSendError('failed', message);
}

/**
 * Sends `mail` through the server; resolves when the server accepted it, rejects with an
 * SmtpSendError otherwise. The whole exchange is bounded by the timeout too (a server that answers
 * each read just in time must not hold the request for longer).
 */
export async function sendMail(s: SmtpServerSettings, mail: MailMessage): Promise<void> {
  const transport = transportOf(s);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SmtpSendError('timeout', `no answer within ${s.timeout} s`)),
      Math.max(1, s.timeout) * 1000,
    );
  });
  const sending = transport.sendMail({
    from: s.sender,
    to: mail.to,
    subject: mail.subject,
    ...(mail.mimetype === 'html' ? { html: mail.body } : { text: mail.body }),
  });
  try {
    await Promise.race([sending, deadline]);
  } catch (e) {
    throw failureOf(e);
  } finally {
    clearTimeout(timer);
    // The mail may still be in flight after the deadline: its failure is nobody's business now.
    sending.catch(() => undefined);
    transport.close();
  }
}
