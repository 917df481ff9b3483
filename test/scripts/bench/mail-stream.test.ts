// Scenario 8's challenge stream (issue 19): the check of an e-mail challenge answer whose mail could
// not be sent, the tally and verdict of the stream, its note in the row, and the stream itself
// against a small HTTP server of the test's own. The silent SMTP listener has silent-listener.test.ts;
// the whole scenario runs in main.test.ts. No timings are asserted: the figures are the benchmark's business.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIL_NOT_SENT, mailNotSent } from '../../../scripts/bench/answers.ts';
import { startMailStream, tallyMailAnswers } from '../../../scripts/bench/mail-stream.ts';
import type { PhaseResult, UserGroup } from '../../../scripts/bench/plan.ts';
import { hangingMailNote, judgeMail } from '../../../scripts/bench/report.ts';

const notSent = {
  id: 1,
  jsonrpc: '2.0',
  result: { status: true, value: false, authentication: 'REJECT' },
  detail: { message: MAIL_NOT_SENT, threadid: 1 },
};
const challenge = {
  id: 1,
  jsonrpc: '2.0',
  result: { status: true, value: false, authentication: 'CHALLENGE' },
  detail: { message: 'Enter the OTP from the Email', transaction_id: '0123456789' },
};

describe('the answer to an e-mail challenge whose SMTP server never answers', () => {
  it('"could not be sent", without a challenge, is as intended', () => {
    expect(mailNotSent(notSent)).toBeUndefined();
  });

  it.each([
    ['a challenge (the mail went out)', challenge],
    ['an accepted login', { result: { status: true, value: true, authentication: 'ACCEPT' } }],
    ['another message', { result: { status: true, value: false }, detail: { message: 'wrong otp pin' } }],
    [
      'the message with a transaction id',
      { ...notSent, detail: { message: MAIL_NOT_SENT, transaction_id: '1' } },
    ],
  ])('%s is not', (_, answer) => {
    expect(mailNotSent(answer)).toBe('not "could not be sent"');
  });
});

describe('the tally of the e-mail challenges and its verdict', () => {
  const answer = (seconds: number, problem?: string) => ({ seconds, problem, text: `answer ${seconds}` });

  it('counts "could not be sent" and the rest, with the waits', () => {
    const t = tallyMailAnswers([answer(3), answer(1), answer(2, 'status'), answer(4)]);
    expect(t).toEqual({
      requests: 4,
      notSent: 3,
      other: 1,
      p50Seconds: 3,
      minSeconds: 1,
      maxSeconds: 4,
      samples: ['status: answer 2'],
    });
    expect(judgeMail(t)).toMatch(
      /^e-mail challenges: 1 of 4 did not answer "could not be sent"\n.*status: answer 2/,
    );
  });

  it('passes only when every one answered "could not be sent", and at least one did', () => {
    expect(judgeMail(tallyMailAnswers([answer(2), answer(2)]))).toBeUndefined();
    expect(judgeMail(tallyMailAnswers([]))).toBe('e-mail challenges: none was answered');
  });

  it("the row's note: the logins without the sender, and what the challenges answered", () => {
    const measured = { good: 1 } as PhaseResult;
    const note = hangingMailNote({
      unit: 'logins/s',
      alone: { rate: 1234.4, p50: 12.34, p99: 56.78, cpuMsPerUnit: 0.8765, measured },
      mail: {
        ...tallyMailAnswers([answer(2.01), answer(2.03), answer(2.5)]),
        smtpConnections: 3,
        connections: 16,
        smtpTimeoutSeconds: 2,
      },
    });
    expect(note).toBe(
      'without the hanging sender 1234 logins/s, p50 12.3 ms, p99 56.8 ms, server CPU 0.88 ms per unit; with it: 16 e-mail challenges ' +
        'in flight (SMTP timeout 2 s), 3 of 3 answered "could not be sent" after 2.01–2.50 s (p50 2.03 s), ' +
        '3 SMTP connections left unanswered',
    );
  });
});

describe('the stream of e-mail challenge requests', () => {
  const group: UserGroup = { prefix: 'em', width: 5, count: 3, realm: 'bench' };
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  /** An HTTP server answering every request with `answer`; the requests' forms are kept. */
  async function fakeServer(answer: unknown): Promise<{ url: string; forms: URLSearchParams[] }> {
    const forms: URLSearchParams[] = [];
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        forms.push(new URLSearchParams(body));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, forms };
  }

  /** Runs the stream until the server has seen `n` requests, then stops it. */
  async function streamUntil(url: string, forms: URLSearchParams[], n: number) {
    const stream = startMailStream({ url, group, connections: 2, signed: false });
    while (forms.length < n) await new Promise((r) => setTimeout(r, 5));
    return stream.stop();
  }

  it('sends the PIN-only request of each user in turn and counts "could not be sent"', async () => {
    const { url, forms } = await fakeServer(notSent);
    const t = await streamUntil(url, forms, 6);
    expect(t.requests).toBe(forms.length);
    expect(t.notSent).toBe(forms.length);
    expect(t.other).toBe(0);
    expect(t.samples).toEqual([]);
    // Every request started was answered before stop() returned: the users in turn, round robin.
    for (const f of forms) expect([f.get('realm'), f.get('pass')]).toEqual(['bench', '']);
    const perUser = ['em00001', 'em00002', 'em00003'].map(
      (u) => forms.filter((f) => f.get('user') === u).length,
    );
    expect(perUser.reduce((a, b) => a + b)).toBe(forms.length);
    expect(Math.max(...perUser) - Math.min(...perUser)).toBeLessThanOrEqual(1);
  });

  it('counts any other answer as other, with samples, and the verdict fails', async () => {
    const { url, forms } = await fakeServer(challenge);
    const t = await streamUntil(url, forms, 2);
    expect(t.notSent).toBe(0);
    expect(t.other).toBe(t.requests);
    expect(t.samples[0]).toMatch(/^not "could not be sent": HTTP 200 .*CHALLENGE/);
    expect(judgeMail(t)).toMatch(/did not answer "could not be sent"/);
  });
});
