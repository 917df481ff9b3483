// The questionnaire (reference 3.1): a random question as the challenge, its answer checked
// case-sensitively through the challenge row's data.
import { describe, expect, it } from 'vitest';
import { ParameterError, TokenAdminError } from '../../src/errors.ts';
import { parseQuestions, QuestionType } from '../../src/tokens/question.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const q = new QuestionType();
const QUESTIONS = { 'Your first pet?': 'Rex', 'Your town?': 'Berlin', 'Colour?': 'Blue Green' };
const NOW = new Date();
const OPTS = { policy: () => undefined };

function request(params: Record<string, string>, config: Record<string, string> = {}): EnrollRequest {
  return { serial: 'QUST0001', params, settings: { get: (k) => config[k] }, now: NOW };
}

function stateOf(key: Buffer, count = 3): TokenState {
  return {
    serial: 'QUST0001',
    type: 'question',
    otplen: 6,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info: {},
    key: () => key,
  };
}

describe('parseQuestions', () => {
  it('reads a JSON object question → answer', () => {
    expect(parseQuestions(JSON.stringify(QUESTIONS))).toEqual(QUESTIONS);
  });
  it('refuses other JSON and empty questions or answers', () => {
    for (const bad of ['', 'x', '[]', '"q"', 'null', '{"q": 1}', '{"q": ""}', '{" ": "a"}'])
      expect(() => parseQuestions(bad), bad).toThrow(ParameterError);
  });
});

describe('QuestionType', () => {
  it('is registered and always challenges', () => {
    expect(findTokenType('question')).toBeInstanceOf(QuestionType);
    expect(q.prefix).toBe('QUST');
    expect(q.challengeAlways).toBe(true);
    expect(q.challengeCapable).toBe(true);
  });

  it('seals the questionnaire as the key and shows nothing of it', async () => {
    const e = await q.enroll(request({ questions: JSON.stringify(QUESTIONS) }));
    expect(JSON.parse(e.key!.toString('utf8'))).toEqual(QUESTIONS);
    expect(e.info).toEqual({});
    expect(e.detail).toEqual({});
  });

  it('requires questions, at least question.num_answers of them', async () => {
    await expect(q.enroll(request({}))).rejects.toThrow("Missing parameter: 'questions'");
    await expect(q.enroll(request({ questions: '{}' }))).rejects.toThrow(TokenAdminError);
    const cfg = { 'question.num_answers': '4' };
    const e = await q.enroll(request({ questions: JSON.stringify(QUESTIONS) }, cfg)).catch((x) => x);
    expect(e).toBeInstanceOf(TokenAdminError);
    expect(e.message).toBe('You need to provide at least 4 answers.');
    cfg['question.num_answers'] = '3';
    await expect(q.enroll(request({ questions: JSON.stringify(QUESTIONS) }, cfg))).resolves.toBeDefined();
  });

  it('asks a random question, remembered as the data, and checks its answer exactly', () => {
    const s = stateOf(Buffer.from(JSON.stringify(QUESTIONS)));
    const asked = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const c = q.challenge(s, OPTS);
      expect(c.message).toBe(c.data);
      asked.add(c.message!);
    }
    expect([...asked].sort()).toEqual(Object.keys(QUESTIONS).sort());
    expect(q.checkResponse(s, 'Rex', 'Your first pet?', NOW)).toEqual({ counter: 0, newCount: 3 });
    expect(q.checkResponse(s, 'Blue Green', 'Colour?', NOW)).not.toBeNull();
    expect(q.checkResponse(s, 'rex', 'Your first pet?', NOW)).toBeNull();
    expect(q.checkResponse(s, 'Rex ', 'Your first pet?', NOW)).toBeNull();
    expect(q.checkResponse(s, 'Berlin', 'Your first pet?', NOW)).toBeNull();
    expect(q.checkResponse(s, 'Rex', 'Unknown?', NOW)).toBeNull();
    expect(q.checkResponse(s, 'Rex', '', NOW)).toBeNull();
    expect(q.checkResponse(s, '', 'toString', NOW)).toBeNull();
  });

  it('never accepts an answer without a challenge', () => {
    expect(q.checkOtp()).toBeNull();
    expect(q.challenge(stateOf(Buffer.from('garbage')), OPTS)).toEqual({});
  });
});
