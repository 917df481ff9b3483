// SMTP server definitions (/smtpserver/, reference 8.3) and the one way the rest of authsrv sends
// a mail: sendMailVia(rt, identifier, mail), through the definition of that identifier.
export type { MailMessage } from '../../gateways/smtp/index.ts';
export { SmtpSendError } from '../../gateways/smtp/index.ts';
export {
  deleteSmtpServer,
  listSmtpServers,
  type SavedSmtpServer,
  type SmtpServerView,
  type SmtpTestResult,
  saveSmtpServer,
  sendMailVia,
  smtpServerIdentifiers,
  testSmtpServer,
} from './smtpserver.ts';
