// The templates file of a local CA: the YAML forms accepted (privacyIDEA's `extensions` section
// names, authsrv's own fields, defaults) and every refusal naming the template and the field.
import { describe, expect, it } from 'vitest';
import { parseTemplates } from '../../src/ca-types/index.ts';

describe('parseTemplates', () => {
  it("reads authsrv's fields, privacyIDEA's section names, and defaults", () => {
    expect(
      parseTemplates(`
user: {days: 365, extensions: user}
server: {days: 750, extensions: "server"}
custom:
  days: 10
  key_usage: digitalSignature
  extended_key_usage: [codeSigning, 1.2.3.4]
  subject_required: [CN, O]
plain: {}
`),
    ).toEqual({
      user: {
        days: 365,
        key_usage: ['digitalSignature', 'keyEncipherment'],
        extended_key_usage: ['clientAuth', 'emailProtection'],
        subject_required: ['CN'],
      },
      server: {
        days: 750,
        key_usage: ['digitalSignature', 'keyEncipherment'],
        extended_key_usage: ['serverAuth'],
        subject_required: ['CN'],
      },
      custom: {
        days: 10,
        key_usage: ['digitalSignature'],
        extended_key_usage: ['codeSigning', '1.2.3.4'],
        subject_required: ['CN', 'O'],
      },
      plain: {
        days: 365,
        key_usage: ['digitalSignature', 'keyEncipherment'],
        extended_key_usage: [],
        subject_required: ['CN'],
      },
    });
    expect(parseTemplates('')).toEqual({});
  });

  it('refuses what does not parse or names unknown usages', () => {
    const cases: [string, RegExp][] = [
      ['a: [1', /templates: the file is not valid YAML/],
      ['- a\n- b', /must be a mapping of template names/],
      ['a: 3', /template 'a' must be a mapping/],
      ['a: {days: 0}', /days of template 'a' must be a whole number from 1 to 36500/],
      ['a: {days: 1.5}', /days of template 'a'/],
      ['a: {key_usage: [flying]}', /unknown key usage 'flying' in template 'a'/],
      ['a: {extended_key_usage: [teleport]}', /unknown extended key usage 'teleport'/],
      ['a: {subject_required: {CN: 1}}', /subject_required of template 'a' must be a list/],
      // An alias bomb (billion laughs) is cut short.
      [
        `a: &a [x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b]`,
        /not valid YAML \(Excessive alias count/,
      ],
    ];
    for (const [text, message] of cases) expect(() => parseTemplates(text)).toThrow(message);
  });
});
