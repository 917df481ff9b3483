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
      return pythonJsonObject(pythonJsonMembers(value as Record<string, unknown>));
    }
    default:
      return 'null';
  }
}

/** An object's members with their values serialised (undefined and function values left out). */
export function pythonJsonMembers(obj: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (v !== undefined && typeof v !== 'function') out.push([k, pythonJsonDumps(v)]);
  }
  return out;
}

/**
 * An object from members whose values are serialised already (pythonJsonMembers), keys sorted:
 * a caller that writes one object twice with one more member (a signed answer) serialises each
 * value once. The keys must be distinct.
 */
export function pythonJsonObject(members: readonly (readonly [string, string])[]): string {
  const sorted = [...members].sort(([a], [b]) => compareCodePoints(a, b));
  let out = '{';
  for (let i = 0; i < sorted.length; i++) {
    const [k, v] = sorted[i]!;
    out += `${i > 0 ? ', ' : ''}${pythonString(k)}: ${v}`;
  }
  return `${out}}`;
}

/**
 * Python sorts str keys by code point; JS `<` compares UTF-16 units, which differs above U+FFFF
 * (a surrogate, D800–DFFF, against a unit of E000–FFFF). At the first differing unit, surrogates
 * are moved above and E000–FFFF below them, which is code-point order.
 */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;
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
