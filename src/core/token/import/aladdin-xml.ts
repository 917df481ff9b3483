// Aladdin/SafeNet XML token files: HOTP seeds with their serials.
import { HEX } from './oathcsv.ts';
import { fileError, type ParsedFile } from './parsed.ts';
import { attr, kid, kids, parseXml, text, type XNode } from './xml.ts';

/** `<Tokens><Token serial=…><ProductName/><Applications><Application><Seed>hex</Seed>…`: HOTP tokens. */
export function parseAladdinXml(content: string, hashlib?: string): ParsedFile {
  const out: ParsedFile = { tokens: [], rejected: [] };
  const root = kid(parseXml(content, 'aladdin-xml'), 'tokens');
  if (!root) throw fileError('aladdin-xml', 'no toplevel element Tokens');
  const readEntry = (t: XNode, i: number): unknown => {
    const source = `Token ${i + 1}`;
    const serial = attr(t, 'serial')?.trim();
    if (!serial) return out.rejected.push({ source, reason: 'no serial' });
    const seed = text(kid(t, 'applications', 'application', 'seed'));
    if (!seed) return out.rejected.push({ serial, source, reason: "no element 'Seed'" });
    if (!HEX.test(seed)) return out.rejected.push({ serial, source, reason: 'the seed is not hexadecimal' });
    const chosen =
      hashlib && hashlib !== 'auto' ? hashlib.toLowerCase() : seed.length === 64 ? 'sha256' : 'sha1';
    const description = text(kid(t, 'productname'));
    out.tokens.push({
      serial,
      type: 'hotp',
      otpkey: seed.toLowerCase(),
      otplen: 6,
      hashlib: chosen,
      description: description || undefined,
      source,
    });
  };
  for (const [i, t] of kids(root, 'token').entries()) readEntry(t, i);
  return out;
}
