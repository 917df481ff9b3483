// The XML reader of token files (src/core/token/import/xml.ts): what the validator lets through and
// the parser refuses is a clear import error, not an unexpected one (an HTTP 500 of /token/load,
// found by test/e2e/fuzz.test.ts).
import { describe, expect, it } from 'vitest';
import { kid, parseXml, text } from '../../../../src/core/token/import/xml.ts';
import { TokenAdminError } from '../../../../src/errors.ts';

const refusal = (xml: string, kind = 'pskc') => {
  try {
    parseXml(xml, kind);
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('parseXml', () => {
  it('reads elements as lists with lower-case names and no namespace prefixes', () => {
    const doc = parseXml(
      '<p:KeyContainer xmlns:p="x"><p:SerialNo> S1 </p:SerialNo></p:KeyContainer>',
      'pskc',
    );
    expect(text(kid(doc, 'keycontainer', 'serialno'))).toBe('S1');
  });

  it('refuses external and parameter entities with a clear import error', () => {
    for (const doctype of [
      '<!DOCTYPE k [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
      '<!DOCTYPE k [<!ENTITY % p SYSTEM "http://127.0.0.1/x">]>',
    ]) {
      const e = refusal(`<?xml version="1.0"?>${doctype}<KeyContainer><a>&x;</a></KeyContainer>`);
      expect(e).toBeInstanceOf(TokenAdminError);
      expect((e as Error).message).toMatch(/^Could not import the pskc file: not well-formed XML: /);
    }
  });

  it('refuses elements nested deeper than the parser allows with a clear import error', () => {
    const deep = `<Tokens>${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}</Tokens>`;
    const e = refusal(deep, 'aladdin-xml');
    expect(e).toBeInstanceOf(TokenAdminError);
    expect((e as Error).message).toBe(
      'Could not import the aladdin-xml file: not well-formed XML: Maximum nested tags exceeded',
    );
  });
});
