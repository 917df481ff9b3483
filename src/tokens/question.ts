// Questionnaire (reference 3.1): the user enrolls answers to questions; a PIN-only request always
// starts a challenge asking one random question, and the answer must equal that question's answer
// exactly (case-sensitive). The question asked is kept in the challenge row's data.
//
// The answers are secrets, so the whole questionnaire is sealed as the key: the UTF-8 of a JSON
// object question → answer.
import { ParameterError, TokenAdminError } from '../errors.ts';
import { jsonObject } from './json-object.ts';
import { sameOtp } from './oath.ts';
import { carriedInfo, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import { randomOf } from './random.ts';
import {
  type ChallengeOptions,
  type ChallengeSpec,
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

const FORM = "The parameter 'questions' must be a JSON object of question → answer";

/** The questions of an enrollment request, validated. */
export function parseQuestions(text: string): Record<string, string> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ParameterError(FORM);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ParameterError(FORM);
  const out: Record<string, string> = {};
  for (const [q, a] of Object.entries(v)) {
    if (typeof a !== 'string' || q.trim() === '' || a === '') throw new ParameterError(FORM);
    out[q] = a;
  }
  return out;
}

function questionsOf(token: TokenState): Record<string, unknown> {
  return jsonObject(token.key().toString('utf8'));
}

export class QuestionType extends TokenType {
  readonly type = 'question';
  readonly prefix = 'QUST';
  readonly description = 'Questionnaire: Enroll Questions for the user.';
  override readonly challengeAlways = true;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const text = req.params.questions;
    if (!text) throw ParameterError.missing('questions');
    const questions = parseQuestions(text);
    const min = Number(req.settings.get('question.num_answers'));
    const needed = Number.isInteger(min) && min > 0 ? min : 1;
    if (Object.keys(questions).length < needed)
      throw new TokenAdminError(`You need to provide at least ${needed} answers.`);
    return { key: Buffer.from(JSON.stringify(questions), 'utf8'), info: {}, detail: {} };
  }

  override challenge(token: TokenState, opts: ChallengeOptions): ChallengeSpec {
    const list = Object.keys(questionsOf(token));
    if (list.length === 0) return {};
    const q = list[randomOf(opts.random).int(list.length)]!;
    return { message: q, data: q };
  }

  /** Without a challenge there is no question to answer. */
  checkOtp(): OtpMatch | null {
    return null;
  }

  override checkResponse(token: TokenState, response: string, data: string, _now: Date): OtpMatch | null {
    const questions = questionsOf(token);
    if (!Object.hasOwn(questions, data)) return null;
    const answer = questions[data];
    return typeof answer === 'string' && sameOtp(answer, response)
      ? { counter: 0, newCount: token.count }
      : null;
  }

  /** privacyIDEA's answers are `password` tokeninfo keyed by question; here they are the key. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    const answers = stored.info.filter((e) => e.secret);
    if (answers.some((e) => e.value === undefined)) return { reason: 'an answer does not decrypt' };
    const questions = Object.fromEntries(answers.map((e) => [e.key, e.value as string]));
    const drop = new Set(answers.map((e) => e.key));
    return { key: Buffer.from(JSON.stringify(questions), 'utf8'), info: carriedInfo(stored.info, drop) };
  }
}
