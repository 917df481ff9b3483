// Serialises a value exactly like Python's `json.dumps(obj, sort_keys=True)`: keys sorted at every
// level, separators ", " and ": ", non-ASCII and control characters escaped as lower-case \u escapes of four hex digits,
// floats in Python's repr form. privacyIDEA clients verify response signatures over this text.

export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return pythonNumber(value);
    case 'bigint':
      return value.toString();
    case 'string':
      return pythonString(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
      if (value instanceof Date) return pythonString(value.toISOString());
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined && typeof v !== 'function')
        .sort(([a], [b]) => compareCodePoints(a, b));
      return `{${entries.map(([k, v]) => `${pythonString(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`;
    }
    default:
      return 'null';
  }
}

/** Python sorts str keys by code point; JS `<` compares UTF-16 units, which differs above U+FFFF. */
function compareCodePoints(a: string, b: string): number {
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function pythonString(s: string): string {
  // Python's ensure_ascii escapes everything outside the printable ASCII range ' '..'~'.
  return `"${s.replace(/[\\"]|[^ -~]/g, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

function pythonNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
  // A JS number does not say whether it was an int or a float. Integral values below 1e21 are
  // written as Python writes an int, with all their exact digits (String() would round 2**60 to
  // ...847000 and switch to exponent form at 1e21 only); Python reads them back as int and prints
  // them unchanged, which is what signature verification needs.
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return BigInt(n).toString();
  // Otherwise format as Python's float repr: shortest round-trip digits, exponent form outside
  // 1e-4 <= |n| < 1e16, exponent with a sign and at least two digits.
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const text = String(n);
  return text.includes('.') || text.includes('e') ? text : `${text}.0`;
}
