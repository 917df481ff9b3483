import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/core/context.ts';
import type { Signer } from '../../../src/crypto/index.ts';
import { AuthError, InternalError, ParameterError, RequestBodyError } from '../../../src/errors.ts';
import { INTERNAL_ERROR_TEXT } from '../../../src/http/envelope.ts';
import { renderAnswer } from '../../../src/http/middleware/index.ts';
import { Params } from '../../../src/http/params.ts';
import type { RequestState } from '../../../src/http/state.ts';
import { runSteps, startedState } from '../../helpers/koa-steps.ts';

const rt = { clock: () => new Date(1718000000123) } as unknown as Runtime;

async function render(outcome: Partial<RequestState>, signer?: Signer) {
  const r = await runSteps([renderAnswer(rt, signer)], { state: startedState(outcome) });
  const json = r.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(r.text) : undefined;
  return { ...r, json };
}

describe('renderAnswer', () => {
  it('answers a failure with its own HTTP status and the error envelope', async () => {
    const cases: [Error, number, unknown][] = [
      [new ParameterError('bad'), 200, { code: 905, message: 'ERR905: bad' }],
      [new AuthError('no'), 401, { code: 4031, message: 'no' }],
      [
        RequestBodyError.tooLarge(5),
        413,
        { code: 905, message: 'ERR905: The request body is larger than 5 bytes' },
      ],
      [new InternalError(new Error('secret')), 500, { code: -500, message: INTERNAL_ERROR_TEXT }],
    ];
    for (const [failure, status, error] of cases) {
      const r = await render({ failure: failure as RequestState['failure'] });
      expect(r.status).toBe(status);
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.json.result).toEqual({ status: false, error });
      expect(r.json.time).toBe(1718000000.123);
    }
  });

  it('answers a reply with the success envelope, HTTP 200 or the status the handler set', async () => {
    const r = await render({ reply: { value: true } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json.result).toEqual({ status: true, value: true });
    const notReady = await render({ reply: { value: 'not ready' }, status: 503 });
    expect([notReady.status, notReady.json.result.value]).toEqual([503, 'not ready']);
  });

  it('signs the answer with the nonce of the parameters when a signer is given', async () => {
    const signed: string[] = [];
    const signer = {
      signAsync: async (text: string) => {
        signed.push(text);
        return 'rsa_sha256_pss:00';
      },
    } as unknown as Signer;
    const r = await render({ reply: { value: 1 }, params: new Params({ nonce: 'n1' }) }, signer);
    expect(r.json.nonce).toBe('n1');
    expect(r.json.signature).toBe('rsa_sha256_pss:00');
    expect(signed[0]).toContain('"nonce": "n1"');
  });

  it('answers an empty reply with the bare status (204 unless set)', async () => {
    expect(await render({ reply: { empty: true } })).toMatchObject({ status: 204, text: '' });
    expect(await render({ reply: { empty: true }, status: 400 })).toMatchObject({ status: 400, text: '' });
  });

  it('sends a file reply as a download with a safe file name', async () => {
    const r = await render({
      reply: { file: { name: 'audit log.csv', contentType: 'text/csv', body: 'a,b\n' } },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename=audit_log.csv');
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.text).toBe('a,b\n');
  });

  it("answers a path no route took with privacyIDEA's bare 404 body", async () => {
    const r = await render({});
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: 'Not found' });
  });
});
