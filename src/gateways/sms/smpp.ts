// privacyIDEA's SmppSMSProvider: the message goes to an SMSC over SMPP (npm `smpp`): connect, bind
// as a transmitter with SYSTEM_ID and PASSWORD, submit_sm from S_ADDR to the phone number, unbind.
// The SMSC's command_status decides; TIMEOUT (an addition of authsrv) covers the whole exchange.
import smpp, { type Session } from 'smpp';
import { ParameterError } from '../../errors.ts';
import {
  checkMangling,
  intOption,
  manglePhone,
  REGEXP_PARAMETER,
  timeoutMs,
  timeoutParameter,
  withDeadline,
} from './common.ts';
import { type GatewaySettings, type SmsProvider, SmsSendError } from './provider.ts';

const DEFAULT_TIMEOUT_SECONDS = 5;
const DESTINATION = ['SMSC_HOST', 'SMSC_PORT', 'SYSTEM_ID'];

const parameters = {
  SMSC_HOST: { required: true, description: 'SMSC Host IP' },
  SMSC_PORT: { required: true, description: 'SMSC Port' },
  SYSTEM_ID: { description: 'SMSC Service ID' },
  PASSWORD: { description: 'Password for authentication on SMSC', destination: DESTINATION },
  S_ADDR_TON: { description: 'SOURCE_ADDR_TON Special Flag' },
  S_ADDR_NPI: { description: 'S_ADDR_NPI Special Flag' },
  S_ADDR: { description: 'Source_ADDR' },
  D_ADDR_TON: { description: 'DESTINATION_ADDR_TON Special Flag' },
  D_ADDR_NPI: { description: 'D_ADDR_NPI Special Flag' },
  REGEXP: REGEXP_PARAMETER,
  TIMEOUT: timeoutParameter(DEFAULT_TIMEOUT_SECONDS),
} as const;

const FLAGS = ['S_ADDR_TON', 'S_ADDR_NPI', 'D_ADDR_TON', 'D_ADDR_NPI'] as const;

interface SmppConfig {
  host: string;
  port: number;
  bind: Record<string, unknown>;
  submit: Record<string, unknown>;
  timeoutMs: number;
}

function config(settings: GatewaySettings, phone: string, message: string): SmppConfig {
  const o = settings.options;
  const host = (o.SMSC_HOST ?? '').trim();
  if (host === '') throw new ParameterError('SMSC_HOST must name a host');
  const flag = (key: (typeof FLAGS)[number]) => intOption(key, o[key], 0, 255) ?? 0;
  return {
    host,
    port: intOption('SMSC_PORT', o.SMSC_PORT, 1, 65535) ?? 0,
    bind: { system_id: o.SYSTEM_ID ?? '', password: o.PASSWORD ?? '' },
    submit: {
      source_addr_ton: flag('S_ADDR_TON'),
      source_addr_npi: flag('S_ADDR_NPI'),
      source_addr: o.S_ADDR ?? '',
      dest_addr_ton: flag('D_ADDR_TON'),
      dest_addr_npi: flag('D_ADDR_NPI'),
      destination_addr: manglePhone(phone, o.REGEXP),
      short_message: message,
    },
    timeoutMs: timeoutMs(o.TIMEOUT, DEFAULT_TIMEOUT_SECONDS),
  };
}

function check(settings: GatewaySettings): void {
  checkMangling(settings.options.REGEXP);
  config(settings, '', '');
}

function exchange(c: SmppConfig): Promise<void> {
  const where = `${c.host}:${c.port}`;
  let session: Session | undefined;
  return withDeadline<void>(
    ({ resolve, reject }) => {
      const fail = (why: string) => {
        reject(new SmsSendError(why));
        session?.destroy();
      };
      session = smpp.connect({ host: c.host, port: c.port }, () => {
        session!.bind_transmitter(c.bind, (bound) => {
          if (bound.command_status !== 0)
            return fail(`the SMSC ${where} refused the bind (status ${bound.command_status})`);
          session!.submit_sm(c.submit, (submitted) => {
            if (submitted.command_status !== 0) {
              return fail(`the SMSC ${where} refused the message (status ${submitted.command_status})`);
            }
            resolve();
            session!.unbind({}, () => session!.close());
          });
        });
      });
      session.on('error', (e: NodeJS.ErrnoException) =>
        fail(`cannot reach the SMSC ${where}: ${e.code ?? e.message}`),
      );
      session.on('close', () => fail(`the SMSC ${where} closed the connection`));
    },
    c.timeoutMs,
    () => {
      session?.destroy();
      return new SmsSendError(`no answer from the SMSC ${where} within ${c.timeoutMs / 1000} s`);
    },
  );
}

export const smppProvider: SmsProvider = {
  module: 'privacyidea.lib.smsprovider.SmppSMSProvider.SmppSMSProvider',
  shortName: 'smpp',
  optionsAllowed: false,
  headersAllowed: false,
  parameters,
  check,
  async send(settings, phone, message) {
    await exchange(config(settings, phone, message));
  },
};
