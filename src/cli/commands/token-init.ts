// `authsrv token init`: enrolls a token (or re-keys one of the same type), as POST /token/init.
// The PIN comes from standard input, never from the command line; the key is never audited.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command } from 'commander';
import { initToken } from '../../core/token/index.ts';
import { ParameterError } from '../../errors.ts';
import { notBoth, printJson, readStdinLine, runAudited } from '../common.ts';
import { terminalQr, writeQrPng } from '../qr.ts';

interface InitOptions {
  type: string;
  serial?: string;
  user?: string;
  realm?: string;
  otpkey?: string;
  genkey?: boolean;
  otplen?: string;
  hashlib?: string;
  pinStdin?: boolean;
  description?: string;
  email?: string;
  dynamicEmail?: boolean;
  phone?: string;
  dynamicPhone?: boolean;
  smsIdentifier?: string;
  ca?: string;
  template?: string;
  csr?: string;
  pkcs12Out?: string;
  json?: boolean;
  /** false with --no-qr */
  qr: boolean;
  qrPng?: string;
}

/** The `init` subcommand, attached under `authsrv token`. */
export function tokenInitCommand(): Command {
  return new Command('init')
    .description('enroll a token (or re-key an existing one of the same type)')
    .requiredOption('--type <type>', 'hotp, totp, spass, pw, registration, email, sms, …')
    .option('--serial <serial>', 'the serial (default: generated)')
    .option('--user <user>', 'the owner (USER or USER@REALM)')
    .option('--realm <realm>', "the owner's realm, or without --user the token's realm")
    .option('--otpkey <hex>', 'the seed in hex (pw: the password)')
    .option('--genkey', 'generate the seed (the default)')
    .option('--otplen <n>', 'OTP length, 6 or 8')
    .option('--hashlib <hashlib>', 'sha1, sha256 or sha512')
    .option('--pin-stdin', 'read the token PIN from standard input')
    .option('--description <text>', 'description')
    .option('--email <address>', 'email: where the one-time values are mailed')
    .option('--dynamic-email', "email: mail them to the owner's address in the user store")
    .option('--phone <number>', 'sms: where the one-time values are sent')
    .option('--dynamic-phone', "sms: send them to the owner's mobile number in the user store")
    .option(
      '--sms-identifier <gateway>',
      'sms: the SMS gateway of the token (default: config sms.identifier)',
    )
    .option('--ca <name>', 'certificate: the CA connector that issues the certificate')
    .option('--template <name>', "certificate: the CA connector's template")
    .option('--csr <file>', 'certificate: the PEM certificate signing request (or --genkey)')
    .option(
      '--pkcs12-out <file>',
      'certificate with --genkey: write the PKCS#12 bundle there (mode 0600, a new file)',
    )
    .option('--json', 'print JSON (without QR images)')
    .option('--no-qr', 'do not draw the QR code of the otpauth URI in the terminal')
    .option('--qr-png <file>', 'also write the QR code as a PNG image (mode 0600, a new file)')
    .action(async (o: InitOptions, cmd: Command) => {
      if (o.qrPng !== undefined) checkNewFile(o.qrPng, '--qr-png');
      if (o.pkcs12Out !== undefined) checkNewFile(o.pkcs12Out, '--pkcs12-out');
      const pin = o.pinStdin ? await readStdinLine() : undefined;
      const params = initParams(o, pin);
      const action = {
        command: 'token init',
        detail: initDetail(o),
        fields: {
          ...(o.user ? { user: o.user } : {}),
          ...(o.realm ? { realm: o.realm } : {}),
          token_type: o.type.toLowerCase(),
        },
      };
      const { serial, detail } = await runAudited(
        cmd,
        action,
        (ctx) => initToken(ctx, params),
        (r) => ({ serial: r.serial, token_type: r.type }),
      );
      const uri = otpauthUri(detail);
      if (uri !== undefined && o.qrPng !== undefined) writeQrPng(uri, o.qrPng);
      if (typeof detail.pkcs12 === 'string' && o.pkcs12Out !== undefined)
        writeFileSync(o.pkcs12Out, Buffer.from(detail.pkcs12, 'base64'), { mode: 0o600, flag: 'wx' });
      if (o.json) return printJson(withoutImages(detail));
      printEnrollment(serial, detail);
      if (uri !== undefined && o.qr)
        console.log(terminalQr(uri, process.stdout.isTTY === true && !process.env.NO_COLOR));
    });
}

/** Refused before the token is enrolled, so that a bad file name leaves no token without its QR. */
function checkNewFile(file: string, option: string): void {
  if (existsSync(file)) throw new ParameterError(`${option}: ${file} exists; give the name of a new file`);
  if (!existsSync(dirname(file)))
    throw new ParameterError(`${option}: the directory ${dirname(file)} does not exist`);
}

/** The CSR file of --csr, read by the operator's CLI (it is the operator's own input). */
function csrFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ParameterError(`--csr: ${file} can not be read (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
}

function otpauthUri(detail: Record<string, unknown>): string | undefined {
  const url = (detail.googleurl as { value?: unknown } | undefined)?.value;
  return typeof url === 'string' ? url : undefined;
}

/** The /token/init parameters of the options (the PIN is read separately, never from argv). */
function initParams(o: InitOptions, pin: string | undefined): Record<string, string> {
  notBoth(o.otpkey !== undefined, o.genkey, '--otpkey', '--genkey');
  const p: Record<string, string> = { type: o.type };
  if (o.serial !== undefined) p.serial = o.serial;
  if (o.user !== undefined) p.user = o.user;
  if (o.realm !== undefined) p.realm = o.realm;
  if (o.otpkey !== undefined) p.otpkey = o.otpkey;
  if (o.genkey) p.genkey = '1';
  if (o.otplen !== undefined) p.otplen = o.otplen;
  if (o.hashlib !== undefined) p.hashlib = o.hashlib;
  if (o.description !== undefined) p.description = o.description;
  if (o.email !== undefined) p.email = o.email;
  if (o.dynamicEmail) p.dynamic_email = '1';
  if (o.phone !== undefined) p.phone = o.phone;
  if (o.dynamicPhone) p.dynamic_phone = '1';
  if (o.smsIdentifier !== undefined) p['sms.identifier'] = o.smsIdentifier;
  notBoth(o.csr !== undefined, o.genkey, '--csr', '--genkey');
  if (o.ca !== undefined) p.ca = o.ca;
  if (o.template !== undefined) p.template = o.template;
  if (o.csr !== undefined) p.request = csrFile(o.csr);
  if (pin !== undefined) p.pin = pin;
  return p;
}

/** What the audit row's info records of an init: the options, never the key or PIN. */
function initDetail(o: InitOptions): string {
  const words = [`--type ${o.type}`];
  if (o.serial) words.push(`--serial ${o.serial}`);
  if (o.user) words.push(`--user ${o.user}`);
  if (o.realm) words.push(`--realm ${o.realm}`);
  if (o.otpkey !== undefined) words.push('--otpkey ***');
  if (o.genkey) words.push('--genkey');
  if (o.pinStdin) words.push('--pin-stdin');
  if (o.email) words.push(`--email ${o.email}`);
  if (o.dynamicEmail) words.push('--dynamic-email');
  if (o.phone) words.push(`--phone ${o.phone}`);
  if (o.dynamicPhone) words.push('--dynamic-phone');
  if (o.smsIdentifier) words.push(`--sms-identifier ${o.smsIdentifier}`);
  if (o.ca) words.push(`--ca ${o.ca}`);
  if (o.template) words.push(`--template ${o.template}`);
  if (o.csr) words.push(`--csr ${o.csr}`);
  return words.join(' ');
}

/** The serial and what the owner needs: the otpauth URI, a generated password or registration code. */
function printEnrollment(serial: string, detail: Record<string, unknown>): void {
  console.log(`serial: ${serial}`);
  const url = otpauthUri(detail);
  if (url !== undefined) console.log(`otpauth URI: ${url}`);
  if (typeof detail.password === 'string') console.log(`password: ${detail.password}`);
  if (typeof detail.registrationcode === 'string')
    console.log(`registration code: ${detail.registrationcode}`);
  if (typeof detail.pkcs12_password === 'string') console.log(`PKCS#12 password: ${detail.pkcs12_password}`);
  if (typeof detail.certificate === 'string') process.stdout.write(detail.certificate.replace(/\n?$/, '\n'));
}

/** The enrollment detail without QR images (PNG data URIs are no use on a terminal). */
function withoutImages(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutImages);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => k !== 'img')
      .map(([k, v]) => [k, withoutImages(v)]),
  );
}
