// `authsrv token getserial <otp>`: the HOTP or TOTP token that produced an OTP value, as
// GET /token/getserial; exit 1 when none did. The OTP value is not audited.
import { Command } from 'commander';
import { type GetSerialQuery, serialByOtp } from '../../core/token/index.ts';
import { ParameterError } from '../../errors.ts';
import { printJson, runAudited } from '../common.ts';

interface GetSerialOptions {
  type?: string;
  serial?: string;
  assigned?: boolean;
  unassigned?: boolean;
  window?: string;
  count?: boolean;
  json?: boolean;
}

/** The `getserial` subcommand, attached under `authsrv token`. */
export function tokenGetSerialCommand(): Command {
  return new Command('getserial')
    .argument('<otp>')
    .description('find the HOTP or TOTP token that produced an OTP value; the value is used up')
    .option('--type <type>', 'only tokens of this type (hotp, totp)')
    .option('--serial <text>', 'only tokens whose serial contains this text')
    .option('--assigned', 'only tokens with an owner')
    .option('--unassigned', 'only tokens without an owner')
    .option('--window <n>', 'HOTP: the next N counters; TOTP: N time steps either side of now (default 10)')
    .option('--count', 'only count the tokens that would be checked')
    .option('--json', 'print JSON ({serial, count})')
    .action(async (otp: string, o: GetSerialOptions, cmd: Command) => {
      const query = queryOf(o);
      const action = { command: 'token getserial', detail: getSerialDetail(o) };
      const result = await runAudited(
        cmd,
        action,
        (ctx) => serialByOtp(ctx, otp, query),
        (r) => (r.serial ? { serial: r.serial } : {}),
      );
      if (!o.count && result.serial === null) process.exitCode = 1;
      if (o.json) return printJson(result);
      if (o.count) console.log(String(result.count));
      else if (result.serial !== null) console.log(result.serial);
      else console.log(`No token matches this OTP value (${result.count} tokens checked).`);
    });
}

function queryOf(o: GetSerialOptions): GetSerialQuery {
  if (o.window !== undefined && !/^\d{1,9}$/.test(o.window.trim()))
    throw new ParameterError(`'window' must be a positive integer, not '${o.window}'`);
  return {
    type: o.type,
    serial: o.serial,
    assigned: o.assigned === true,
    unassigned: o.unassigned === true,
    countOnly: o.count === true,
    ...(o.window !== undefined ? { window: Number(o.window) } : {}),
  };
}

/** What the audit row's info records of a getserial: the options, not the OTP value. */
function getSerialDetail(o: GetSerialOptions): string {
  const words: string[] = [];
  if (o.type) words.push(`--type ${o.type}`);
  if (o.serial) words.push(`--serial ${o.serial}`);
  if (o.assigned) words.push('--assigned');
  if (o.unassigned) words.push('--unassigned');
  if (o.window !== undefined) words.push(`--window ${o.window}`);
  if (o.count) words.push('--count');
  return words.join(' ');
}
