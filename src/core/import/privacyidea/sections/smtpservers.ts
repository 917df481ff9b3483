// SMTP server definitions (table smtpserver). The password (config key, `iv:ct`) is decrypted and
// sealed again by the SMTP server service. enqueue_job has no counterpart: authsrv sends at once.
import { saveSmtpServer } from '../../../smtpserver/index.ts';
import { decryptedValue, namesIn, type Planned, piBool, piText, serviceSection } from './common.ts';

interface PiSmtpServer {
  identifier: string;
  params: Record<string, string>;
}

export const smtpServerSection = serviceSection<PiSmtpServer>({
  name: 'smtpservers',
  async read({ source, keys }) {
    const rows = await source.db.selectFrom('smtpserver').selectAll().orderBy('id').execute();
    return rows.map((r): Planned<PiSmtpServer> => {
      const identifier = piText(r.identifier);
      const password = decryptedValue(keys, piText(r.password), 'The password');
      if ('refusal' in password) return { object: identifier, refusal: password.refusal };
      const params: Record<string, string> = {
        server: piText(r.server),
        port: piText(r.port),
        username: piText(r.username),
        password: password.value,
        sender: piText(r.sender),
        tls: piBool(r.tls) ? 'True' : 'False',
        description: piText(r.description),
      };
      if (piText(r.timeout) !== '') params.timeout = piText(r.timeout);
      return { object: identifier, item: { identifier, params } };
    });
  },
  existing: namesIn('smtpserver', 'identifier'),
  write: (ctx, s) => saveSmtpServer(ctx, s.identifier, s.params),
});
