// A real SMTP server for the tests (npm smtp-server) on a free port of 127.0.0.1: AUTH PLAIN/LOGIN
// with one account, STARTTLS (or implicit TLS) with a self-signed certificate for 127.0.0.1 made
// by openssl, and the mails it received. It can be stopped (connection refused) and made to stall
// before its greeting (a timeout), so the failure paths run against the same peer.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  contentType: string;
  /** The body, transfer encoding undone. */
  body: string;
}

export interface SmtpSink {
  port: number;
  /** The PEM certificate of the server (self-signed: it is its own CA). */
  cert: string;
  user: string;
  password: string;
  mails: ReceivedMail[];
  /** Resolves with the next mail received (or one already waiting). */
  nextMail(): Promise<ReceivedMail>;
  /** Whether the server withholds its greeting (clients then time out). */
  stall: boolean;
  /** How many connections it accepted so far. */
  connections: number;
  /** Stops listening: connections are refused until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

let certificate: { key: string; cert: string } | undefined;

/** A self-signed certificate for 127.0.0.1, made once per test process. */
export function selfSignedCertificate(): { key: string; cert: string } {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'authsrv-smtp-cert-'));
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  certificate = {
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
  };
  return certificate;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Decodes an RFC 2047 encoded word (nodemailer encodes a non-ASCII subject). */
function decodeWords(text: string): string {
  return text.replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, enc: string, data: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(data, 'base64').toString('utf8')
      : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
}

/** A single-part message as nodemailer writes it: headers, a blank line, the encoded body. */
export function parseMail(raw: string, from: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const encoded = raw.slice(split + 4);
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  const body =
    encoding === 'base64'
      ? Buffer.from(encoded, 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(encoded)
        : encoded;
  return {
    from,
    to,
    subject: decodeWords(headers.get('subject') ?? ''),
    contentType: headers.get('content-type') ?? '',
    body: body.replace(/\r\n$/, ''),
  };
}

/**
 * Starts the sink (on `port`, else a free one); `implicitTls` makes it an SMTPS server (TLS from
 * the first byte).
 */
export async function startSmtpSink(
  options: { implicitTls?: boolean; port?: number } = {},
): Promise<SmtpSink> {
  const { key, cert } = selfSignedCertificate();
  const user = 'mailer';
  const password = 'smtp-Pa55';
  const mails: ReceivedMail[] = [];
  const waiting: ((m: ReceivedMail) => void)[] = [];
  let taken = 0;
  const sink: SmtpSink = {
    port: 0,
    cert,
    user,
    password,
    mails,
    stall: false,
    connections: 0,
    nextMail() {
      const ready = mails[taken];
      if (ready) {
        taken++;
        return Promise.resolve(ready);
      }
      return new Promise((resolve) => waiting.push(resolve));
    },
    stop: async () => undefined,
    start: async () => undefined,
    close: async () => undefined,
  };
  const server = new SMTPServer({
    secure: options.implicitTls === true,
    key,
    cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // Over plain SMTP too (tls=false), as a site's internal relay may allow.
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onConnect(_session, callback) {
      sink.connections++;
      // A stalled server never greets: the client's greeting timeout must end the wait.
      if (!sink.stall) callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const mail = parseMail(
          Buffer.concat(chunks).toString('utf8'),
          envelopeFrom,
          session.envelope.rcptTo.map((r) => r.address),
        );
        const waiter = waiting.shift();
        if (waiter) {
          taken++;
          mails.push(mail);
          waiter(mail);
        } else mails.push(mail);
        callback();
      });
    },
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.server.off('error', reject);
        resolve((server.server.address() as AddressInfo).port);
      });
    });
  sink.port = await listen(options.port ?? 0);
  sink.stop = () =>
    new Promise<void>((resolve) => {
      // Open (stalled) connections are cut, so that the port is free for start().
      server.server.close(() => resolve());
      for (const c of (server as unknown as { connections: Set<{ close(): void }> }).connections) c.close();
    });
  sink.start = async () => {
    await listen(sink.port);
  };
  sink.close = async () => {
    sink.stall = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return sink;
}
