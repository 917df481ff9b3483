// The Where setting of an SQL resolver: `column op value [AND column op value …]`, parsed into
// column comparisons, so that no text of the setting ever becomes SQL.
import { ParameterError } from '../../errors.ts';

export type WhereOperator =
  | '='
  | '<>'
  | '<'
  | '>'
  | '<='
  | '>='
  | 'like'
  | 'not like'
  | 'is null'
  | 'is not null';

export interface WhereCondition {
  column: string;
  op: WhereOperator;
  /** Bound as a parameter; null for IS [NOT] NULL. */
  value: string | number | null;
}

const SYMBOL_OPS: Record<string, WhereOperator> = {
  '==': '=',
  '=': '=',
  '!=': '<>',
  '<>': '<>',
  '<=': '<=',
  '>=': '>=',
  '<': '<',
  '>': '>',
};

/**
 * Parses the Where filter. Grammar: conditions joined by AND (any case); a condition is
 * `column OP value` with OP one of `= == != <> < > <= >= LIKE NOT LIKE`, or `column IS [NOT] NULL`.
 * A value is a number, a quoted string ('…' or "…", the quote doubled inside), or a bare word
 * without blanks, quotes, parentheses, semicolons or comparison signs (privacyIDEA's `active == 1`,
 * `email like %@example.com`). Anything else — OR, parentheses, comments, functions — is refused.
 */
export function parseWhere(text: string): WhereCondition[] {
  const src = text.trim();
  const out: WhereCondition[] = [];
  if (src === '') return out;
  let i = 0;
  const fail = (expected: string) =>
    new ParameterError(
      `Where: ${expected} at position ${i + 1} of '${text}'. Allowed: column <op> value joined by AND, with ` +
        '<op> one of = == != <> < > <= >= LIKE, NOT LIKE, or column IS [NOT] NULL',
    );
  const blanks = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const word = (): string | undefined => {
    const m = /^[\p{L}_][\p{L}\p{N}_$]*/u.exec(src.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  const keyword = (): string | undefined => {
    const start = i;
    const w = word();
    if (w === undefined) return undefined;
    // A keyword must stand alone: `ANDx` is not AND.
    if (i < src.length && !/\s/.test(src[i]!)) {
      i = start;
      return undefined;
    }
    return w.toUpperCase();
  };
  const value = (): string | number => {
    const quote = src[i];
    if (quote === "'" || quote === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw fail(`a closing ${quote}`);
        if (src[i] === quote) {
          if (src[i + 1] === quote) {
            s += quote;
            i += 2;
            continue;
          }
          i++;
          return s;
        }
        s += src[i++];
      }
    }
    const m = /^[^\s'"();=<>!]+/.exec(src.slice(i));
    if (!m) throw fail('a value');
    i += m[0].length;
    return /^-?\d{1,15}(\.\d{1,15})?$/.test(m[0]) ? Number(m[0]) : m[0];
  };

  for (;;) {
    if (out.length >= 20) throw fail('at most 20 conditions');
    blanks();
    const column = word();
    if (column === undefined) throw fail('a column name');
    blanks();
    const sym = /^(==|!=|<>|<=|>=|=|<|>)/.exec(src.slice(i));
    if (sym) {
      i += sym[0].length;
      blanks();
      out.push({ column, op: SYMBOL_OPS[sym[0]]!, value: value() });
    } else {
      const kw = keyword();
      if (kw === 'LIKE' || kw === 'NOT') {
        if (kw === 'NOT') {
          blanks();
          if (keyword() !== 'LIKE') throw fail('LIKE after NOT');
        }
        blanks();
        out.push({ column, op: kw === 'NOT' ? 'not like' : 'like', value: String(value()) });
      } else if (kw === 'IS') {
        blanks();
        let w = keyword();
        const not = w === 'NOT';
        if (not) {
          blanks();
          w = keyword();
        }
        if (w !== 'NULL') throw fail('NULL');
        out.push({ column, op: not ? 'is not null' : 'is null', value: null });
      } else {
        throw fail('an operator');
      }
    }
    blanks();
    if (i >= src.length) return out;
    if (keyword() !== 'AND') throw fail('AND or the end');
  }
}
