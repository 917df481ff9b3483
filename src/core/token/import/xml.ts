// The XML of token files (Aladdin/SafeNet, PSKC) as plain objects: lower-case names, no namespace
// prefixes, every element a list.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { fileError } from './parsed.ts';

export type XNode = Record<string, unknown>;

/** Parses XML with lower-case names and no namespace prefixes; every element is a list. */
export function parseXml(text: string, kind: string): XNode {
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw fileError(kind, `not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    alwaysCreateTextNode: true,
    transformTagName: (t) => t.toLowerCase(),
    transformAttributeName: (a) => a.toLowerCase(),
    isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
  });
  try {
    return parser.parse(text) as XNode;
  } catch (e) {
    // What the validator lets through and the parser refuses: a DOCTYPE with external or parameter
    // entities, elements nested deeper than the parser's limit (100).
    throw fileError(kind, `not well-formed XML: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function kids(node: XNode | undefined, name: string): XNode[] {
  const v = node?.[name];
  return Array.isArray(v) ? (v as XNode[]) : [];
}

export function kid(node: XNode | undefined, ...path: string[]): XNode | undefined {
  let n = node;
  for (const name of path) n = kids(n, name)[0];
  return n;
}

/** The text of an element and its descendants (privacyIDEA reads `<Counter><PlainValue>` so). */
export function text(node: XNode | undefined): string {
  if (!node) return '';
  let out = typeof node['#text'] === 'string' ? node['#text'] : '';
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith('@_') || k === '#text' || !Array.isArray(v)) continue;
    for (const child of v as XNode[]) out += text(child);
  }
  return out.trim();
}

export function attr(node: XNode | undefined, name: string): string | undefined {
  const v = node?.[`@_${name.toLowerCase()}`];
  return typeof v === 'string' ? v : undefined;
}
