// Distinguished names (RFC 4514): reading the RDNs of a DN, and escaping a value put into one.
//
// Local because ldapts cannot do either: its DN class builds DNs but parses none, so telling
// whether a DN lies under LDAPBASE and which attributes name an entry needs parseDn. And ldapts
// escapes only whole RDN values (DN.toString; its RDN class is not even exported), and does it the
// RFC 2253 way: a value with a leading or trailing blank is put in quotes, and NUL is not escaped.
// DN_TEMPLATE puts a value into part of an RDN value (`cn=<givenname> <surname>`), where quotes
// cannot go, so escapeDnValue escapes a value piece by RFC 4514 §2.4.

/** One attribute type and its (unescaped) value. */
export type Ava = readonly [type: string, value: string];

/** The attribute/value pairs of one RDN: more than one for a multi-valued RDN (`uid=x+cn=y`). */
export type Rdn = readonly Ava[];

/** RFC 4514 §2.4 escaping of (part of) an attribute value. */
export function escapeDnValue(value: string): string {
  const chars = [...value];
  return chars
    .map((c, i) => {
      if (c === '\0') return '\\00';
      if ('\\,+"<>;='.includes(c)) return `\\${c}`;
      if ((c === ' ' && (i === 0 || i === chars.length - 1)) || (c === '#' && i === 0)) return `\\${c}`;
      return c;
    })
    .join('');
}

/**
 * The RDNs of a DN, first (leftmost) first, with their values unescaped: `\,` and the like stand
 * for the character, hex pairs (`\2C`, `\C3\A9`) for UTF-8 bytes; blanks around `,`, `+` and `=`
 * do not count. Undefined when the text is no DN (an RDN without `=`, a dangling backslash).
 */
export function parseDn(dn: string): Rdn[] | undefined {
  const rdns: Rdn[] = [];
  if (dn.trim() === '') return rdns;
  let rdn: Ava[] = [];
  let i = 0;
  for (;;) {
    const eq = dn.indexOf('=', i);
    const type = eq < 0 ? '' : dn.slice(i, eq).trim();
    if (type === '' || /[,+\\]/.test(type)) return undefined;
    const value = readValue(dn, eq + 1);
    if (value === undefined) return undefined;
    rdn.push([type, value.text]);
    i = value.end + 1;
    if (dn[value.end] === '+') continue;
    rdns.push(rdn);
    rdn = [];
    if (value.end >= dn.length) return rdns;
  }
}

/** An attribute value from `start` up to the next unescaped `,` or `+` (or the end). */
function readValue(dn: string, start: number): { text: string; end: number } | undefined {
  const bytes: number[] = [];
  let significant = 0;
  let i = start;
  while (dn[i] === ' ') i++;
  while (i < dn.length && dn[i] !== ',' && dn[i] !== '+') {
    const escaped = dn[i] === '\\';
    if (escaped && ++i >= dn.length) return undefined;
    if (escaped && /^[0-9a-f]{2}$/i.test(dn.slice(i, i + 2))) {
      bytes.push(Number.parseInt(dn.slice(i, i + 2), 16));
      i += 2;
    } else {
      const c = String.fromCodePoint(dn.codePointAt(i)!);
      bytes.push(...Buffer.from(c));
      i += c.length;
      // Unescaped blanks at the end of a value do not belong to it.
      if (!escaped && c === ' ') continue;
    }
    significant = bytes.length;
  }
  return { text: Buffer.from(bytes.slice(0, significant)).toString('utf8'), end: i };
}

/** Whether two RDNs are the same: types and values compared case-insensitively, in any order. */
function sameRdn(a: Rdn, b: Rdn): boolean {
  const key = (rdn: Rdn) =>
    rdn
      .map(([type, value]) => JSON.stringify([type.toLowerCase(), value.toLowerCase()]))
      .sort()
      .join();
  return a.length === b.length && key(a) === key(b);
}

/** Whether `dn` is `base` or lies below it. */
export function isWithin(dn: string, base: string): boolean {
  const d = parseDn(dn);
  const b = parseDn(base);
  if (!d || !b || d.length < b.length) return false;
  const offset = d.length - b.length;
  return b.every((rdn, i) => sameRdn(rdn, d[offset + i]!));
}

/** The attribute/value pairs that name the entry of a DN (its first RDN). */
export function namingAttributes(dn: string): Rdn {
  return parseDn(dn)?.[0] ?? [];
}
