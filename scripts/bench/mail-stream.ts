// Scenario 8's second load: a steady stream of e-mail challenge requests (the PIN alone, so the
// server mails the value) to an SMTP server that never answers, from the benchmark's own process
// while the driver runs the ordinary logins. `connections` requests are always in flight, each
// held by the server for the SMTP timeout and answered "could not be sent"; every answer is checked.
import { answerProblem, mailNotSent, percentile } from './answers.ts';
import { groupUser, type UserGroup } from './plan.ts';

export interface MailStreamOptions {
  url: string;
  /** The users of the e-mail tokens (no PIN: an empty pass is the PIN-only request). */
  group: UserGroup;
  connections: number;
  signed: boolean;
}

/** What the stream's requests answered, from its start to its stop. */
export interface MailStreamResult {
  /** Requests answered (or failed) between start and stop, the ones in flight at stop included. */
  requests: number;
  /** Answered "The PIN was correct, but the EMail could not be sent!". */
  notSent: number;
  /** Anything else: another answer, an HTTP error, a failed connection. */
  other: number;
  /** Seconds from a request to its answer (all requests): what each sender waited. */
  p50Seconds: number;
  minSeconds: number;
  maxSeconds: number;
  /** Up to five answers that were not "could not be sent". */
  samples: string[];
}

export interface MailStream {
  /** Starts no new request and waits for those in flight (at most the SMTP timeout). */
  stop(): Promise<MailStreamResult>;
}

/** The stream's tally of answers: pure, so that test/scripts/ can check it. */
export function tallyMailAnswers(
  answers: { seconds: number; problem: string | undefined; text: string }[],
): MailStreamResult {
  const sorted = answers.map((a) => a.seconds).sort((a, b) => a - b);
  const wrong = answers.filter((a) => a.problem !== undefined);
  return {
    requests: answers.length,
    notSent: answers.length - wrong.length,
    other: wrong.length,
    p50Seconds: percentile(sorted, 50),
    minSeconds: sorted[0] ?? 0,
    maxSeconds: sorted.at(-1) ?? 0,
    samples: wrong.slice(0, 5).map((a) => `${a.problem}: ${a.text.slice(0, 400)}`),
  };
}

export function startMailStream(o: MailStreamOptions): MailStream {
  const answers: { seconds: number; problem: string | undefined; text: string }[] = [];
  let running = true;
  let next = 0;
  const one = async () => {
    const i = next++ % o.group.count;
    const body = new URLSearchParams({ user: groupUser(o.group, i), realm: o.group.realm, pass: '' });
    const t0 = performance.now();
    let problem: string | undefined;
    let text = '';
    try {
      const r = await fetch(`${o.url}/validate/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
      text = await r.text();
      problem = answerProblem(r.status, text, o.signed, mailNotSent);
      if (problem !== undefined) text = `HTTP ${r.status} ${text}`;
    } catch (e) {
      problem = 'request failed';
      text = (e as Error).message;
    }
    answers.push({ seconds: (performance.now() - t0) / 1000, problem, text });
  };
  const sender = async () => {
    while (running) await one();
  };
  const senders = Array.from({ length: o.connections }, sender);
  return {
    async stop() {
      running = false;
      await Promise.all(senders);
      return tallyMailAnswers(answers);
    },
  };
}
