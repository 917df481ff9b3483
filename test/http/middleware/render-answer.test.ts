import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/core/context.ts';
import type { Signer } from '../../../src/crypto/index.ts';
import {
  AuthError,
  InternalError,
  ParameterError,
  RequestBodyError,
  SERVER_DETAIL_TEXT,
  UserError,
} from '../../../src/errors.ts';
import { INTERNAL_ERROR_TEXT } from '../../../src/http/envelope.ts';
import { answerer, renderAnswer } from '../../../src/http/middleware/index.ts';
import { Params } from '../../../src/http/params.ts';
import type { RequestState } from '../../../src/http/state.ts';
import { recordingLog, runSteps, startedState } from '../../helpers/koa-steps.ts';

const logged = recordingLog();
const rt = { clock: () => new Date(1718000000123), log: logged.log } as unknown as Runtime;

async function render(outcome: Partial<RequestState>, signer?: Signer) {
  const r = await runSteps([renderAnswer(answerer(rt, signer))], { state: startedState(outcome) });
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
      expect(r.json.result).toEqual({ status: false, error });
      expect(r.json.time).toBe(1718000000.123);
    }
  });

  it('shows a message naming a server path to administrators only; the log keeps it', async () => {
    const failure = new ParameterError('Cannot read the passwd file /srv/authsrv/users: ENOENT');
    const admin = { role: 'admin', username: 'admin', realm: '', authtype: 'password', client: '' } as const;
    const call = (caller?: typeof admin | { role: 'user' }) =>
      ({ route: caller ? { caller } : undefined }) as unknown as Partial<RequestState>;
    logged.lines.length = 0;
    const shown = await render({ failure, ...call(admin) });
    expect(shown.json.result.error).toEqual({ code: 905, message: `ERR905: ${failure.message}` });
    expect(logged.lines).toEqual([]);
    for (const outsider of [call(), call({ role: 'user' })]) {
      const r = await render({ failure, ...outsider });
      expect([r.status, r.json.result.error]).toEqual([
        200,
        { code: 905, message: `ERR905: ${SERVER_DETAIL_TEXT}` },
      ]);
      expect(r.text).not.toContain('/srv/authsrv');
    }
    expect(logged.lines.map((l) => [l.level, l.fields.err])).toEqual([
      ['warn', failure],
      ['warn', failure],
    ]);
    // Messages without a path are shown to everybody, as they are.
    const plain = await render({ failure: new UserError('User <alice@realm1> does not exist.') });
    expect(plain.json.result.error.message).toBe('ERR904: User <alice@realm1> does not exist.');
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

  describe('an outcome that cannot be rendered', () => {
    /** A signer that fails for the texts `fails` picks and signs the others. */
    function flakySigner(fails: (text: string) => boolean) {
      return {
        signAsync: async (text: string) => {
          if (fails(text)) throw new Error('the security module is gone');
          return 'rsa_sha256_pss:00';
        },
      } as unknown as Signer;
    }

    it('answers a reply that cannot be serialised with the signed internal error; the reply stays', async () => {
      logged.lines.length = 0;
      const value = {
        get broken(): never {
          throw new TypeError('not serialisable');
        },
      };
      const r = await render(
        { reply: { value } },
        flakySigner(() => false),
      );
      expect(r.status).toBe(500);
      expect(r.json.result).toEqual({ status: false, error: { code: -500, message: INTERNAL_ERROR_TEXT } });
      expect(r.json.signature).toBe('rsa_sha256_pss:00');
      expect(r.state.failure).toBeInstanceOf(InternalError);
      expect(r.state.reply).toEqual({ value });
      expect(logged.lines.map((l) => [l.level, l.message])).toEqual([
        ['error', 'the answer could not be rendered'],
      ]);
    });

    it('answers unsigned when the signer fails, for a reply and for a failure', async () => {
      const signer = flakySigner(() => true);
      for (const outcome of [{ reply: { value: true } }, { failure: new ParameterError('bad') }]) {
        const r = await render({ ...outcome, params: new Params({ nonce: 'n1' }) }, signer);
        expect(r.status).toBe(500);
        expect(r.json.result.error.code).toBe(-500);
        expect(r.json.signature).toBeUndefined();
        expect(r.json.nonce).toBeUndefined();
      }
    });

    it('answers unsigned when the nonce it would sign cannot be serialised', async () => {
      let nonce: unknown = 1;
      for (let i = 0; i < 20_000; i++) nonce = [nonce];
      const r = await render(
        { reply: { value: true }, params: new Params({ nonce: nonce as never }) },
        flakySigner(() => false),
      );
      expect(r.status).toBe(500);
      expect(r.json.result.error.code).toBe(-500);
      expect(r.json.signature).toBeUndefined();
    });
  });
});
