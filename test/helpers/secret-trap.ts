// Secret traps. A TCP listener standing for a server of an attacker's choosing: it records every connection and
// every byte it receives, so that a test can tell whether authsrv contacted it and what it sent.
// As `postgres`, it asks the client for its password in clear (AuthenticationCleartextPassword), as
// a hostile PostgreSQL server may, so that an SQL resolver's password arrives as it is.
import net from 'node:net';

export interface SecretTrap {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  /** Everything received so far, all connections together. */
  received(): Buffer;
  stop(): Promise<void>;
}

/** AuthenticationCleartextPassword: 'R', length 8, code 3. */
const CLEARTEXT_PASSWORD_REQUEST = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]);

export async function startSecretTrap(protocol: 'raw' | 'postgres' = 'raw'): Promise<SecretTrap> {
  let connections = 0;
  const chunks: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let messages = 0;
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      messages++;
      // The startup message of PostgreSQL gets the password request; anything after it, or the
      // first request of any other protocol, ends the connection: the trap has what it wanted.
      if (protocol === 'postgres' && messages === 1) socket.write(CLEARTEXT_PASSWORD_REQUEST);
      else socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    received: () => Buffer.concat(chunks),
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// The other kind of trap: secrets a test set, looked for wherever they must not be (database
// files, logs, answers) in every form a careless encoder could leave them in.

/** A secret a test set, and where it came from (for the failure message). */
export interface PlantedSecret {
  label: string;
  /** As the test sent it. */
  text: string;
  /** The text is hexadecimal for these bytes (a seed): their encodings are looked for too. */
  hex?: boolean;
}

const base32 = (bytes: Buffer): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
};

/**
 * The forms of a secret that would give it away: as it was sent, and its bytes (its UTF-8, and for
 * a hexadecimal seed the bytes it stands for) in hex, base32, base64 and base64url. Hex and base32
 * are compared without regard to case; `raw` are the bytes themselves, for binary files.
 */
export function secretForms(secret: PlantedSecret): { text: string[]; folded: string[]; raw: Buffer[] } {
  const byteSets = [Buffer.from(secret.text, 'utf8')];
  if (secret.hex) byteSets.push(Buffer.from(secret.text, 'hex'));
  const text = [secret.text];
  const folded: string[] = [];
  for (const bytes of byteSets) {
    text.push(bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url'));
    folded.push(bytes.toString('hex'), base32(bytes).toLowerCase());
  }
  return { text, folded, raw: secret.hex ? [byteSets[1]!] : [] };
}

/** The secrets (with the form found) that `haystack` holds in any of their forms. */
export function leakedSecrets(haystack: Buffer | string, secrets: readonly PlantedSecret[]): string[] {
  const bytes = typeof haystack === 'string' ? Buffer.from(haystack, 'utf8') : haystack;
  const lower = Buffer.from(bytes.toString('latin1').toLowerCase(), 'latin1');
  const found: string[] = [];
  for (const secret of secrets) {
    const forms = secretForms(secret);
    const hit =
      forms.text.find((f) => bytes.includes(Buffer.from(f, 'utf8'))) ??
      forms.folded.find((f) => lower.includes(Buffer.from(f, 'utf8'))) ??
      (forms.raw.some((r) => bytes.includes(r)) ? '<raw bytes>' : undefined);
    if (hit !== undefined) found.push(`${secret.label} (${hit.slice(0, 60)})`);
  }
  return found;
}
