// What one request may hold besides its size (http.max_body_bytes): how many parameters and how
// deeply nested a JSON value. Both are checked while the parameters are read, before any step that
// could act on them, for every source alike (query string, urlencoded, multipart, JSON), so that a
// hostile body costs neither CPU in the steps that walk every parameter nor a failure after a
// handler changed something (a value nested thousands of levels deep cannot be serialised back).
import { RequestBodyError } from '../errors.ts';

export const REQUEST_LIMITS = {
  /** Parameters of one request, query string and body together (a multipart file counts as one). */
  parameters: 1000,
  /** Levels of objects and arrays in a JSON body, its own object counted: `{"a": [1]}` has 2. */
  depth: 32,
} as const;

/** The parameters a request may still have, spent as each source is read. */
export class ParameterBudget {
  #left: number = REQUEST_LIMITS.parameters;

  get left(): number {
    return this.#left;
  }

  /** Counts `n` more parameters; refuses the request (HTTP 400) beyond the limit. */
  spend(n: number): void {
    this.#left -= n;
    if (this.#left < 0) throw tooManyParameters();
  }
}

export function tooManyParameters(): RequestBodyError {
  return RequestBodyError.overLimit(`The request has more than ${REQUEST_LIMITS.parameters} parameters`);
}

/**
 * The name=value pairs URLSearchParams reads from `text`, counted without parsing it (empty pieces
 * between two '&' are skipped, as it skips them); counting stops once `max` is exceeded.
 */
export function formPairCount(text: string, max: number): number {
  let count = 0;
  let start = 0;
  while (start < text.length && count <= max) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (end > start) count++;
    start = end + 1;
  }
  return count;
}

/** Refuses (HTTP 400) a parsed JSON value that nests objects and arrays deeper than the limit. */
export function checkJsonDepth(value: unknown): void {
  // An explicit stack: the walk itself must not be what a deep value overflows.
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > REQUEST_LIMITS.depth) {
      throw RequestBodyError.overLimit(
        `The JSON request body is nested deeper than ${REQUEST_LIMITS.depth} levels`,
      );
    }
    for (const child of Object.values(v as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
}
