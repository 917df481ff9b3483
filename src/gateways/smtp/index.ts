// SMTP: sending one mail through an SMTP server with nodemailer (send.ts). Core's smtpserver/
// hands it a definition in clear; nothing here reads the store or knows a definition's name.
export {
  failureOf,
  type MailMessage,
  type SmtpFailureReason,
  SmtpSendError,
  type SmtpServerSettings,
  sendMail,
} from './send.ts';
