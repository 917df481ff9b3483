// The value grammars of the event conditions (reference 7.1 "Conditions"): integer comparisons
// (`<5`, `>5`, `==5`, `!=5`, bare `5`), `<name><op><value>` comparisons (counter, tokeninfo) with
// `{now}` and its offsets (`{now}-10d`, `{now}+2h`) compared as dates, and ages (`10h`, `7d`).
// Each grammar has a parser that throws ConditionValueError on a malformed value, so that a
// definition is refused when it is saved, and a comparison that only runs on parsed values.
import { nowOffset, UNIT_MS } from '../../event-handlers/index.ts';

/** A condition value that does not follow its grammar; the message says why. */
export class ConditionValueError extends Error {}

export type Op = '==' | '!=' | '<' | '>';

export interface IntComparison {
  op: Op;
  n: number;
}

const INT = /^[+-]?\d{1,15}$/;

/** `<n`, `>n`, `==n`, `!=n` or a bare `n` (= `==n`). */
export function parseIntComparison(text: string): IntComparison {
  const m = /^\s*(==|!=|<|>)?\s*([+-]?\d+)\s*$/.exec(text);
  if (!m || !INT.test(m[2] as string)) {
    throw new ConditionValueError(`'${text}' is not an integer comparison like 5, ==5, !=5, <5 or >5`);
  }
  return { op: (m[1] ?? '==') as Op, n: Number(m[2]) };
}

function compareOrdered<T>(actual: T, op: Op, expected: T): boolean {
  switch (op) {
    case '==':
      return actual === expected;
    case '!=':
      return actual !== expected;
    case '<':
      return actual < expected;
    case '>':
      return actual > expected;
  }
}

export function compareInt(actual: number, c: IntComparison): boolean {
  return compareOrdered(actual, c.op, c.n);
}

export interface KeyComparison {
  key: string;
  op: Op;
  value: string;
}

/** `<key><op><value>`: the first operator splits; the key must not be empty. */
export function parseKeyComparison(text: string): KeyComparison {
  const m = /^\s*([^=!<>]+?)\s*(==|!=|<|>)\s*(.*?)\s*$/.exec(text);
  if (!m) {
    throw new ConditionValueError(
      `'${text}' is not a comparison like key==value, key!=value, key<value or key>value`,
    );
  }
  const [, key, op, value] = m as unknown as [string, string, Op, string];
  if ((op === '<' || op === '>') && value === '') {
    throw new ConditionValueError(`'${text}' compares with nothing`);
  }
  nowValue(value);
  return { key, op, value };
}

/** `<name><op><n>` of the counter condition: the value must be an integer. */
export function parseCounterComparison(text: string): KeyComparison & { n: number } {
  const c = parseKeyComparison(text);
  if (!INT.test(c.value)) {
    throw new ConditionValueError(`'${text}' is not a counter comparison like mycounter>10`);
  }
  return { ...c, n: Number(c.value) };
}

/** An age like `30m`, `10h`, `7d`, `2w`, `1y` in milliseconds. */
export function parseAge(text: string): number {
  const m = /^\s*(\d{1,9})\s*([smhdwy])\s*$/.exec(text);
  if (!m) throw new ConditionValueError(`'${text}' is not a duration like 10h or 7d (s, m, h, d, w, y)`);
  return Number(m[1]) * (UNIT_MS[m[2] as string] as number);
}

/** The offset of a `{now}` value (see nowOffset of the handler modules); malformed: an error. */
function nowValue(text: string): number | undefined {
  const offset = nowOffset(text);
  if (offset === null) {
    throw new ConditionValueError(`'${text}' is not {now} or {now} with an offset like {now}-10d`);
  }
  return offset;
}

/**
 * A date as tokeninfo writes them (`2025-01-31T10:00+0000`, `2025-01-31 10:00:00.123456+0100`,
 * ISO forms with `Z` or `+hh:mm`) in milliseconds; undefined when the text is no such date. A date
 * without an offset is read as UTC.
 */
export function parseDateText(text: string): number | undefined {
  const m =
    /^\s*(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?\s*$/.exec(
      text,
    );
  if (!m) return undefined;
  const frac = (m[4] ?? '0').padEnd(3, '0').slice(0, 3);
  const zone = m[5] === undefined || m[5] === 'Z' ? 'Z' : `${m[5].slice(0, 3)}:${m[5].slice(-2)}`;
  const t = Date.parse(`${m[1]}T${m[2] ?? '00:00'}:${m[3] ?? '00'}.${frac}${zone}`);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * Compares a stored value with a condition's: `{now}…` as dates (an actual value that is no date
 * never holds); two integers as numbers; two dates as dates; else as texts. A missing actual value
 * never holds.
 */
export function compareValues(actual: string | undefined, c: KeyComparison, now: Date): boolean {
  if (actual === undefined) return false;
  const offset = nowValue(c.value);
  if (offset !== undefined) {
    const at = parseDateText(actual);
    return at !== undefined && compareOrdered(at, c.op, now.getTime() + offset);
  }
  if (INT.test(actual.trim()) && INT.test(c.value))
    return compareOrdered(Number(actual), c.op, Number(c.value));
  const a = parseDateText(actual);
  const e = parseDateText(c.value);
  if (a !== undefined && e !== undefined) return compareOrdered(a, c.op, e);
  return compareOrdered(actual, c.op, c.value);
}
