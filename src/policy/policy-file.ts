// The policy export file (GET /policy/export, POST /policy/import, CLI import/export). The layout is
// privacyIDEA's (reference 5.6): per policy a section header `[<name>]`, then one `key = value` line
// per attribute, then an empty line. authsrv writes every value as JSON on one line, so that every
// field round-trips exactly:
//
//   [pol1]
//   name = "pol1"
//   scope = "admin"
//   action = {"tokenlist":true,"auditlog_age":"5d"}
//   realm = ["realm1"]
//   active = true
//   …
//
// Reading also accepts privacyIDEA's own export, whose values are Python's str()/repr()
// (`['realm1']`, `{'tokenlist': True}`, `True`, `None`, bare text for name, scope and time): a value
// that is not JSON is read as a Python literal, and failing that taken as plain text.
import { ParameterError } from '../errors.ts';

export type FileValue = string | number | boolean | null | FileValue[] | { [k: string]: FileValue };

/** Serialises policies (each a plain object of its attributes) in the export format. */
export function formatPolicyFile(policies: readonly Readonly<Record<string, unknown>>[]): string {
  const out: string[] = [];
  for (const p of policies) {
    out.push(`[${String(p.name)}]`);
    for (const [k, v] of Object.entries(p)) out.push(`${k} = ${JSON.stringify(v ?? null)}`);
    out.push('');
  }
  return out.join('\n');
}

/** Parses an export file: section name → attributes. Bad syntax → ParameterError 905. */
export function parsePolicyFile(text: string): Map<string, Record<string, FileValue>> {
  const out = new Map<string, Record<string, FileValue>>();
  let current: Record<string, FileValue> | undefined;
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = Object.create(null) as Record<string, FileValue>;
      out.set((header[1] as string).trim(), current);
      continue;
    }
    const eq = line.indexOf('=');
    if (!current || eq < 0) {
      throw new ParameterError(`Error loading policy. Line ${i + 1} is neither '[name]' nor 'key = value'`);
    }
    current[line.slice(0, eq).trim()] = parseValue(line.slice(eq + 1).trim());
  }
  return out;
}

function parseValue(text: string): FileValue {
  if (text === '') return '';
  try {
    return JSON.parse(text) as FileValue;
  } catch {
    // not JSON
  }
  try {
    return parsePythonLiteral(text);
  } catch {
    return text;
  }
}

/** A Python literal as repr() writes it: str, int, float, True/False/None, list, tuple, dict. */
export function parsePythonLiteral(text: string): FileValue {
  return new PythonLiteralReader(text).whole();
}

/** The escapes of a Python string literal that stand for one fixed character. */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '0': '\0',
};

/** How many hex digits follow \x, \u and \U. */
const HEX_ESCAPES: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

const WORDS: readonly (readonly [string, FileValue])[] = [
  ['True', true],
  ['False', false],
  ['None', null],
];

/** A recursive-descent reader of one literal; `at` is the position of the next character. */
class PythonLiteralReader {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  whole(): FileValue {
    const v = this.value();
    this.skipSpace();
    if (this.#at !== this.#text.length) this.fail();
    return v;
  }

  private value(): FileValue {
    this.skipSpace();
    const c = this.#text[this.#at];
    if (c === "'" || c === '"') return this.string();
    if (c === '[') return this.sequence(']');
    if (c === '(') return this.sequence(')');
    if (c === '{') return this.dict();
    const word = this.word();
    if (word) return word.value;
    return this.number() ?? this.fail();
  }

  private string(): string {
    const quote = this.#text[this.#at++];
    let out = '';
    while (this.#at < this.#text.length && this.#text[this.#at] !== quote) {
      const c = this.#text[this.#at++] as string;
      out += c === '\\' ? this.escape() : c;
    }
    if (this.#text[this.#at] !== quote) this.fail();
    this.#at++;
    return out;
  }

  /** The character an escape after a backslash stands for; an unknown escape stays as written. */
  private escape(): string {
    const e = this.#text[this.#at++] ?? this.fail();
    if (Object.hasOwn(SIMPLE_ESCAPES, e)) return SIMPLE_ESCAPES[e] as string;
    const digits = Object.hasOwn(HEX_ESCAPES, e) ? HEX_ESCAPES[e] : undefined;
    if (digits === undefined) return `\\${e}`;
    const hex = this.#text.slice(this.#at, this.#at + digits);
    if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) this.fail();
    this.#at += digits;
    return String.fromCodePoint(Number.parseInt(hex, 16));
  }

  /** A list or tuple: values separated by commas, a trailing comma allowed. */
  private sequence(close: string): FileValue[] {
    const items: FileValue[] = [];
    this.items(close, () => items.push(this.value()));
    return items;
  }

  private dict(): Record<string, FileValue> {
    const obj: Record<string, FileValue> = {};
    this.items('}', () => {
      const key = this.value();
      this.skipSpace();
      if (this.#text[this.#at++] !== ':') this.fail();
      obj[String(key)] = this.value();
    });
    return obj;
  }

  /** Reads `item` until `close`, items separated by commas; starts on the opening bracket. */
  private items(close: string, item: () => void): void {
    this.#at++;
    this.skipSpace();
    while (this.#text[this.#at] !== close) {
      item();
      this.skipSpace();
      if (this.#text[this.#at] === ',') {
        this.#at++;
        this.skipSpace();
      } else if (this.#text[this.#at] !== close) this.fail();
    }
    this.#at++;
  }

  /** True, False or None (wrapped: None is null). */
  private word(): { value: FileValue } | undefined {
    for (const [word, value] of WORDS) {
      if (this.#text.startsWith(word, this.#at)) {
        this.#at += word.length;
        return { value };
      }
    }
    return undefined;
  }

  private number(): number | undefined {
    const num = /^[+-]?\d+(\.\d+)?/.exec(this.#text.slice(this.#at));
    if (!num) return undefined;
    this.#at += num[0].length;
    return Number(num[0]);
  }

  private skipSpace(): void {
    while (this.#at < this.#text.length && /\s/.test(this.#text[this.#at] as string)) this.#at++;
  }

  private fail(): never {
    throw new Error(`not a Python literal at ${this.#at}`);
  }
}
