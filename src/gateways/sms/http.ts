// privacyIDEA's HttpSMSProvider: the message goes to an HTTP(S) gateway as a GET query or a POST
// body (form or JSON). Every option that is not one of the parameters is a request parameter, with
// {otp} (the message) and {phone} replaced; with SEND_DATA_AS_JSON=yes a value that parses as JSON
// is sent as that JSON value. The gateway must answer 200, 201 or 202; RETURN_SUCCESS (or
// RETURN_FAIL) is then looked for in the answer. Proxies are not supported: those options are
// refused rather than silently ignored.
import http from 'node:http';
import https from 'node:https';
import { ParameterError } from '../../errors.ts';
import {
  checkMangling,
  manglePhone,
  REGEXP_PARAMETER,
  timeoutMs,
  timeoutParameter,
  withDeadline,
} from './common.ts';
import { type GatewaySettings, type SmsProvider, SmsSendError } from './provider.ts';

const DEFAULT_TIMEOUT_SECONDS = 3;
/** More of an answer than this is not needed to find RETURN_SUCCESS or RETURN_FAIL. */
const MAX_ANSWER_BYTES = 64 * 1024;
const ACCEPTED_STATUS = [200, 201, 202];
const UNSUPPORTED = ['PROXY', 'HTTP_PROXY', 'HTTPS_PROXY'];
const DESTINATION = ['URL', 'USERNAME', 'CHECK_SSL'];

const parameters = {
  URL: { required: true, description: 'The base URL of the HTTP gateway' },
  HTTP_METHOD: {
    required: true,
    description: 'Should the HTTP gateway be connected via an HTTP GET or POST request.',
    values: ['GET', 'POST'],
  },
  RETURN_SUCCESS: {
    description:
      'Specify a substring or regular expression, that indicates, that the SMS was delivered successfully.',
  },
  RETURN_FAIL: {
    description:
      'Specify a substring or regular expression, that indicates, that the SMS failed to be delivered.',
  },
  USERNAME: { description: 'The username for basic authentication.' },
  PASSWORD: { description: 'The password for basic authentication.', destination: DESTINATION },
  CHECK_SSL: {
    required: true,
    description: 'Should the SSL certificate be verified.',
    values: ['yes', 'no'],
  },
  SEND_DATA_AS_JSON: {
    required: true,
    description: 'Send the request data as JSON in the body of a POST request.',
    values: ['yes', 'no'],
  },
  REGEXP: REGEXP_PARAMETER,
  TIMEOUT: timeoutParameter(DEFAULT_TIMEOUT_SECONDS),
} as const;

function parsedUrl(url: string | undefined): URL {
  let u: URL;
  try {
    u = new URL(url ?? '');
  } catch {
    throw new ParameterError(`URL must be an http:// or https:// URL, not '${url ?? ''}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ParameterError(`URL must be an http:// or https:// URL, not '${u.protocol}…'`);
  }
  return u;
}

function check(settings: GatewaySettings): void {
  const o = settings.options;
  for (const key of UNSUPPORTED) {
    if (o[key] !== undefined && o[key] !== '') {
      throw new ParameterError(`${key}: proxies are not supported by authsrv's HTTP SMS provider`);
    }
  }
  // privacyIDEA also takes a password from https://user:pass@host/; stored there it would be shown
  // in every listing, so it must go into PASSWORD, which is sealed.
  if (parsedUrl(o.URL).password !== '') {
    throw new ParameterError('URL: give the password as PASSWORD (and the user as USERNAME), not in the URL');
  }
  checkMangling(o.REGEXP);
  timeoutMs(o.TIMEOUT, DEFAULT_TIMEOUT_SECONDS);
}

/** The extra options (the request's parameters) as configured, before {otp} and {phone} are replaced. */
function extraOptions(options: GatewaySettings['options']): [string, string][] {
  return Object.entries(options).filter(([key]) => !(key in parameters) && !UNSUPPORTED.includes(key));
}

const substitute = (text: string, phone: string, message: string) =>
  text.replaceAll('{otp}', message).replaceAll('{phone}', phone);

/**
 * A JSON body's value: an option that parses as JSON as configured (`["{phone}"]`, `true`) is that
 * JSON with {otp}/{phone} replaced in its strings; anything else is a string. Deciding before the
 * replacement keeps an OTP value a string (privacyIDEA decides after it, so `{otp}` became a number
 * and lost its leading zeros).
 */
function jsonValue(template: string, phone: string, message: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(template);
  } catch {
    return substitute(template, phone, message);
  }
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return substitute(v, phone, message);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(parsed);
}

interface HttpRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string | undefined;
  verify: boolean;
  timeoutMs: number;
}

/** The request a message makes: where, how, with which parameters and credentials. */
function buildRequest(settings: GatewaySettings, phone: string, message: string): HttpRequest {
  const o = settings.options;
  const url = parsedUrl(o.URL);
  const username = o.USERNAME ?? '';
  const password = o.PASSWORD;
  const headers: Record<string, string> = { ...settings.headers };
  if (username !== '' && password !== undefined) {
    headers.Authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }
  const mangled = manglePhone(phone, o.REGEXP);
  const extra = extraOptions(o);
  const method = o.HTTP_METHOD === 'POST' ? 'POST' : 'GET';
  let body: string | undefined;
  if (method === 'GET') {
    for (const [k, v] of extra) url.searchParams.append(k, substitute(v, mangled, message));
  } else if (o.SEND_DATA_AS_JSON === 'yes') {
    body = JSON.stringify(Object.fromEntries(extra.map(([k, v]) => [k, jsonValue(v, mangled, message)])));
    headers['Content-Type'] = 'application/json';
  } else {
    body = new URLSearchParams(
      extra.map(([k, v]): [string, string] => [k, substitute(v, mangled, message)]),
    ).toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  return {
    url,
    method,
    headers,
    body,
    verify: o.CHECK_SSL !== 'no',
    timeoutMs: timeoutMs(o.TIMEOUT, DEFAULT_TIMEOUT_SECONDS),
  };
}

interface HttpAnswer {
  status: number;
  text: string;
}

/** Sends the request; the deadline covers connecting, sending and reading the answer. */
function exchange(r: HttpRequest): Promise<HttpAnswer> {
  const origin = r.url.origin;
  const transport = r.url.protocol === 'https:' ? https : http;
  let req: http.ClientRequest | undefined;
  return withDeadline<HttpAnswer>(
    ({ resolve, reject }) => {
      req = transport.request(
        r.url,
        { method: r.method, headers: r.headers, rejectUnauthorized: r.verify, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8'),
            }),
          );
          res.on('error', (e) => reject(new SmsSendError(`the answer of ${origin} broke off: ${e.message}`)));
        },
      );
      req.on('error', (e: NodeJS.ErrnoException) =>
        reject(new SmsSendError(`cannot reach ${origin}: ${e.code ?? e.message}`)),
      );
      req.end(r.body);
    },
    r.timeoutMs,
    () => {
      req?.destroy();
      return new SmsSendError(`no answer from ${origin} within ${r.timeoutMs / 1000} s`);
    },
  );
}

/** Whether the answer holds `expected`: as a substring, or as a regular expression that matches. */
function answerHolds(text: string, expected: string): boolean {
  if (text.includes(expected)) return true;
  try {
    return new RegExp(expected).test(text);
  } catch {
    return false;
  }
}

function checkAnswer(answer: HttpAnswer, options: GatewaySettings['options']): void {
  if (!ACCEPTED_STATUS.includes(answer.status)) {
    throw new SmsSendError(`the gateway answered HTTP ${answer.status}`);
  }
  const success = options.RETURN_SUCCESS;
  const fail = options.RETURN_FAIL;
  if (success) {
    if (!answerHolds(answer.text, success)) {
      throw new SmsSendError(`the gateway's answer does not contain RETURN_SUCCESS (${success})`);
    }
  } else if (fail && answerHolds(answer.text, fail)) {
    throw new SmsSendError(`the gateway's answer contains RETURN_FAIL (${fail})`);
  }
}

export const httpProvider: SmsProvider = {
  module: 'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider',
  shortName: 'http',
  optionsAllowed: true,
  headersAllowed: true,
  parameters,
  check,
  async send(settings, phone, message) {
    const answer = await exchange(buildRequest(settings, phone, message));
    checkAnswer(answer, settings.options);
  },
};
