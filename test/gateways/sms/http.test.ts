// The HTTP SMS provider against a real HTTP listener on 127.0.0.1: GET and POST, form and JSON
// bodies, {otp}/{phone} substitution, headers, basic auth (no password in the URL), REGEXP mangling,
// RETURN_SUCCESS / RETURN_FAIL, a status that is not accepted, a listener that never answers
// (TIMEOUT) and a refused connection.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ParameterError } from '../../../src/errors.ts';
import { httpProvider } from '../../../src/gateways/sms/http.ts';
import { SmsSendError } from '../../../src/gateways/sms/provider.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const env = { log: pino({ level: 'silent' }), scriptsDir: '/nonexistent' };
let server: Server;
let base: string;
const received: Received[] = [];
let answer: { status: number; text: string; hang?: boolean } = { status: 200, text: 'OK' };

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (answer.hang) return; // never answers
      res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
      res.end(answer.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received.length = 0;
  answer = { status: 200, text: 'OK' };
});

const gateway = (options: Record<string, string>, headers: Record<string, string> = {}) => ({
  options: { HTTP_METHOD: 'GET', CHECK_SSL: 'yes', SEND_DATA_AS_JSON: 'no', URL: `${base}/send`, ...options },
  headers,
});

describe('HTTP SMS provider', () => {
  it('sends a GET with the extra options as the query, {otp} and {phone} replaced', async () => {
    const g = gateway({ text: 'Your code: {otp}', to: '{phone}', from: 'authsrv' }, { 'X-Api-Key': 'k1' });
    await httpProvider.send(g, '+49 151 123', '123456', env);
    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(r.method).toBe('GET');
    const url = new URL(r.url, base);
    expect(url.pathname).toBe('/send');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      text: 'Your code: 123456',
      to: '+49 151 123',
      from: 'authsrv',
    });
    expect(r.headers['x-api-key']).toBe('k1');
    expect(r.headers.authorization).toBeUndefined();
    expect(r.body).toBe('');
  });

  it('sends a POST form body with basic auth and a mangled phone number', async () => {
    const g = gateway({
      HTTP_METHOD: 'POST',
      USERNAME: 'smsuser',
      PASSWORD: 'sms-pass',
      REGEXP: '/[\\+ ]//',
      msg: '{otp}',
      number: '{phone}',
    });
    await httpProvider.send(g, '+49 151 123', 'code 42', env);
    const r = received[0]!;
    expect(r.method).toBe('POST');
    expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({ msg: 'code 42', number: '49151123' });
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('smsuser:sms-pass').toString('base64')}`);
  });

  it('replaces with back-references and refuses a password in the URL', async () => {
    await httpProvider.send(gateway({ REGEXP: '/^0/+49/', to: '{phone}' }), '0151', 'x', env);
    expect(new URL(received[0]!.url, base).searchParams.get('to')).toBe('+49151');
    await httpProvider.send(
      gateway({ REGEXP: '/^(\\d{3})(\\d+)$/\\2-\\1/', to: '{phone}' }),
      '0151234',
      'x',
      env,
    );
    expect(new URL(received[1]!.url, base).searchParams.get('to')).toBe('1234-015');
    const inUrl = gateway({ URL: `http://u:secret@127.0.0.1:${new URL(base).port}/s` });
    expect(() => httpProvider.check(inUrl, env)).toThrow(
      new ParameterError('URL: give the password as PASSWORD (and the user as USERNAME), not in the URL'),
    );
  });

  it('sends a JSON body, values that parse as JSON as JSON', async () => {
    const g = gateway({
      HTTP_METHOD: 'POST',
      SEND_DATA_AS_JSON: 'yes',
      text: '{otp}',
      recipients: '["{phone}"]',
      flash: 'true',
      count: '3',
    });
    await httpProvider.send(g, '+4915', '087654', env);
    const r = received[0]!;
    expect(r.headers['content-type']).toBe('application/json');
    // The OTP value stays a string with its leading zero.
    expect(JSON.parse(r.body)).toEqual({ text: '087654', recipients: ['+4915'], flash: true, count: 3 });
  });

  it('checks RETURN_SUCCESS and RETURN_FAIL in the answer, and the status', async () => {
    answer = { status: 200, text: 'status=QUEUED id=17' };
    await httpProvider.send(gateway({ RETURN_SUCCESS: 'QUEUED' }), '1', 'm', env);
    await httpProvider.send(gateway({ RETURN_SUCCESS: 'id=\\d+' }), '1', 'm', env);
    await expect(httpProvider.send(gateway({ RETURN_SUCCESS: 'DELIVERED' }), '1', 'm', env)).rejects.toThrow(
      new SmsSendError("the gateway's answer does not contain RETURN_SUCCESS (DELIVERED)"),
    );
    answer = { status: 200, text: 'ERROR: no credit' };
    await expect(httpProvider.send(gateway({ RETURN_FAIL: 'ERROR' }), '1', 'm', env)).rejects.toThrow(
      "the gateway's answer contains RETURN_FAIL (ERROR)",
    );
    answer = { status: 202, text: 'fine' };
    await httpProvider.send(gateway({ RETURN_FAIL: 'ERROR' }), '1', 'm', env);
    answer = { status: 500, text: 'broken' };
    await expect(httpProvider.send(gateway({}), '1', 'm', env)).rejects.toThrow(
      'the gateway answered HTTP 500',
    );
    answer = { status: 302, text: '' };
    await expect(httpProvider.send(gateway({}), '1', 'm', env)).rejects.toThrow(
      'the gateway answered HTTP 302',
    );
  });

  it('gives up after TIMEOUT on a listener that never answers', async () => {
    answer = { status: 200, text: '', hang: true };
    const sent = httpProvider.send(gateway({ TIMEOUT: '0.3' }), '1', 'm', env);
    await expect(sent).rejects.toBeInstanceOf(SmsSendError);
    await expect(sent).rejects.toThrow(`no answer from ${base} within 0.3 s`);
    expect(received).toHaveLength(1);
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      httpProvider.send(gateway({ URL: `http://127.0.0.1:${port}/` }), '1', 'm', env),
    ).rejects.toThrow(`cannot reach http://127.0.0.1:${port}: ECONNREFUSED`);
  });

  it('refuses bad settings with a clear error', () => {
    const bad = (o: Record<string, string>) => () => httpProvider.check(gateway(o), env);
    expect(bad({ URL: 'ftp://x/' })).toThrow(ParameterError);
    expect(bad({ URL: 'not a url' })).toThrow("URL must be an http:// or https:// URL, not 'not a url'");
    expect(bad({ TIMEOUT: '0' })).toThrow('TIMEOUT must be a number of seconds');
    expect(bad({ TIMEOUT: 'soon' })).toThrow('TIMEOUT must be a number of seconds');
    expect(bad({ REGEXP: '[+]' })).toThrow('REGEXP must look like /pattern/replacement/');
    expect(bad({ REGEXP: '/(/x/' })).toThrow('REGEXP:');
    expect(bad({ HTTP_PROXY: 'http://proxy:3128' })).toThrow('HTTP_PROXY: proxies are not supported');
    expect(bad({ TIMEOUT: '2.5', REGEXP: '/ //' })).not.toThrow();
  });
});

describe('HTTP SMS provider over TLS', () => {
  let dir: string;
  let tlsServer: ReturnType<typeof createHttpsServer>;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authsrv-sms-tls-'));
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1'],
        ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'ignore' },
    );
    tlsServer = createHttpsServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_req, res) => {
      res.writeHead(200);
      res.end('OK');
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/send`;
  });
  afterAll(async () => {
    tlsServer.closeAllConnections();
    await new Promise((resolve) => tlsServer.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks the certificate with CHECK_SSL=yes and not with CHECK_SSL=no', async () => {
    await expect(httpProvider.send(gateway({ URL: url, CHECK_SSL: 'yes' }), '1', 'm', env)).rejects.toThrow(
      /^cannot reach https:\/\/127\.0\.0\.1:\d+: DEPTH_ZERO_SELF_SIGNED_CERT$/,
    );
    await httpProvider.send(gateway({ URL: url, CHECK_SSL: 'no' }), '1', 'm', env);
  });
});
