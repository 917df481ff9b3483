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
  let i = 0;
  const fail = (): never => {
    throw new Error(`not a Python literal at ${i}`);
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const str = (): string => {
    const q = text[i];
    i++;
    let out = '';
    while (i < text.length && text[i] !== q) {
      let c = text[i] as string;
      if (c === '\\') {
        i++;
        const e = text[i] ?? fail();
        const simple: Record<string, string> = {
          n: '\n',
          t: '\t',
          r: '\r',
          '\\': '\\',
          "'": "'",
          '"': '"',
          '0': '\0',
        };
        if (e in simple) c = simple[e] as string;
        else if (e === 'x' || e === 'u' || e === 'U') {
          const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
          const hex = text.slice(i + 1, i + 1 + len);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) fail();
          c = String.fromCodePoint(Number.parseInt(hex, 16));
          i += len;
        } else c = `\\${e}`;
      }
      out += c;
      i++;
    }
    if (text[i] !== q) fail();
    i++;
    return out;
  };
  const seq = (close: string): FileValue[] => {
    i++;
    const items: FileValue[] = [];
    ws();
    while (text[i] !== close) {
      items.push(value());
      ws();
      if (text[i] === ',') {
        i++;
        ws();
      } else if (text[i] !== close) fail();
    }
    i++;
    return items;
  };
  const value = (): FileValue => {
    ws();
    const c = text[i];
    if (c === "'" || c === '"') return str();
    if (c === '[') return seq(']');
    if (c === '(') return seq(')');
    if (c === '{') {
      i++;
      const obj: Record<string, FileValue> = {};
      ws();
      while (text[i] !== '}') {
        const k = value();
        ws();
        if (text[i] !== ':') fail();
        i++;
        obj[String(k)] = value();
        ws();
        if (text[i] === ',') {
          i++;
          ws();
        } else if (text[i] !== '}') fail();
      }
      i++;
      return obj;
    }
    for (const [word, v] of [
      ['True', true],
      ['False', false],
      ['None', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const num = /^[+-]?\d+(\.\d+)?/.exec(text.slice(i));
    if (num) {
      i += num[0].length;
      return Number(num[0]);
    }
    return fail();
  };
  const v = value();
  ws();
  if (i !== text.length) fail();
  return v;
}
