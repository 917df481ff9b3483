// Gateways: what sends messages out of authsrv. SMTP servers (smtp.ts); SMS providers and the
// RADIUS client join this family, one file (or folder) per kind behind their interface.
export {
  type MailMessage,
  type SmtpFailureReason,
  SmtpSendError,
  type SmtpServerSettings,
  sendMail,
} from './smtp.ts';
