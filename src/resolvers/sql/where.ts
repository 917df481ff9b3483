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

const MAX_CONDITIONS = 20;

const ALLOWED =
  'Allowed: column <op> value joined by AND, with <op> one of = == != <> < > <= >= LIKE, NOT LIKE, or column IS [NOT] NULL';

/**
 * Parses the Where filter. Grammar: conditions joined by AND (any case); a condition is
 * `column OP value` with OP one of `= == != <> < > <= >= LIKE NOT LIKE`, or `column IS [NOT] NULL`.
 * A value is a number, a quoted string ('…' or "…", the quote doubled inside), or a bare word
 * without blanks, quotes, parentheses, semicolons or comparison signs (privacyIDEA's `active == 1`,
 * `email like %@example.com`). Anything else — OR, parentheses, comments, functions — is refused.
 */
export function parseWhere(text: string): WhereCondition[] {
  return new WhereReader(text).where();
}

/**
 * A recursive-descent reader of the Where text, one method per production; `at` is the position
 * of the next character of the trimmed text. Values are only ever returned as data (bound as
 * parameters by the caller), never as SQL text.
 */
class WhereReader {
  readonly #text: string;
  readonly #src: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
    this.#src = text.trim();
  }

  /** where := ε | condition (AND condition)* */
  where(): WhereCondition[] {
    const out: WhereCondition[] = [];
    if (this.#src === '') return out;
    for (;;) {
      if (out.length >= MAX_CONDITIONS) throw this.fail(`at most ${MAX_CONDITIONS} conditions`);
      out.push(this.condition());
      this.blanks();
      if (this.#at >= this.#src.length) return out;
      if (this.keyword() !== 'AND') throw this.fail('AND or the end');
    }
  }

  /** condition := column (comparison | [NOT] LIKE value | IS [NOT] NULL) */
  private condition(): WhereCondition {
    this.blanks();
    const column = this.word();
    if (column === undefined) throw this.fail('a column name');
    this.blanks();
    const op = this.comparisonSign();
    if (op !== undefined) {
      this.blanks();
      return { column, op, value: this.value() };
    }
    const keyword = this.keyword();
    if (keyword === 'LIKE') return this.like(column, 'like');
    if (keyword === 'NOT') return this.notLike(column);
    if (keyword === 'IS') return this.isNull(column);
    throw this.fail('an operator');
  }

  /** The rest of `NOT LIKE value`, after NOT. */
  private notLike(column: string): WhereCondition {
    this.blanks();
    if (this.keyword() !== 'LIKE') throw this.fail('LIKE after NOT');
    return this.like(column, 'not like');
  }

  /** The pattern of a [NOT] LIKE, always text. */
  private like(column: string, op: 'like' | 'not like'): WhereCondition {
    this.blanks();
    return { column, op, value: String(this.value()) };
  }

  /** The rest of `IS [NOT] NULL`, after IS. */
  private isNull(column: string): WhereCondition {
    this.blanks();
    let keyword = this.keyword();
    const not = keyword === 'NOT';
    if (not) {
      this.blanks();
      keyword = this.keyword();
    }
    if (keyword !== 'NULL') throw this.fail('NULL');
    return { column, op: not ? 'is not null' : 'is null', value: null };
  }

  /** One of = == != <> < > <= >=, as the operator it stands for. */
  private comparisonSign(): WhereOperator | undefined {
    const sign = this.match(/^(==|!=|<>|<=|>=|=|<|>)/);
    return sign === undefined ? undefined : SYMBOL_OPS[sign];
  }

  /** value := quoted | bare word (a number when it looks like one) */
  private value(): string | number {
    const quote = this.#src[this.#at];
    if (quote === "'" || quote === '"') return this.quoted(quote);
    const bare = this.match(/^[^\s'"();=<>!]+/);
    if (bare === undefined) throw this.fail('a value');
    return /^-?\d{1,15}(\.\d{1,15})?$/.test(bare) ? Number(bare) : bare;
  }

  /** '…' or "…", the quote doubled inside; starts on the opening quote. */
  private quoted(quote: string): string {
    let s = '';
    this.#at++;
    for (;;) {
      if (this.#at >= this.#src.length) throw this.fail(`a closing ${quote}`);
      const c = this.#src[this.#at++]!;
      if (c !== quote) s += c;
      else if (this.#src[this.#at] === quote) {
        s += quote;
        this.#at++;
      } else return s;
    }
  }

  /** A keyword, upper-cased; it must stand alone (`ANDx` is not AND), else nothing is read. */
  private keyword(): string | undefined {
    const start = this.#at;
    const w = this.word();
    if (w === undefined) return undefined;
    if (this.#at < this.#src.length && !/\s/.test(this.#src[this.#at]!)) {
      this.#at = start;
      return undefined;
    }
    return w.toUpperCase();
  }

  /** A name: a letter or _, then letters, digits, _ or $. */
  private word(): string | undefined {
    return this.match(/^[\p{L}_][\p{L}\p{N}_$]*/u);
  }

  private blanks(): void {
    while (this.#at < this.#src.length && /\s/.test(this.#src[this.#at]!)) this.#at++;
  }

  /** Reads what `pattern` (anchored with ^) matches at the current position. */
  private match(pattern: RegExp): string | undefined {
    const m = pattern.exec(this.#src.slice(this.#at));
    if (!m) return undefined;
    this.#at += m[0].length;
    return m[0];
  }

  private fail(expected: string): ParameterError {
    return new ParameterError(
      `Where: ${expected} at position ${this.#at + 1} of '${this.#text}'. ${ALLOWED}`,
    );
  }
}
