// Aladdin/SafeNet XML token files.
import { describe, expect, it } from 'vitest';
import { parseAladdinXml } from '../../../../src/core/token/import/aladdin-xml.ts';
import { SEED } from '../../../helpers/token-files.ts';

describe('Aladdin XML', () => {
  it('reads serial, seed and product name; the hashlib follows the seed length', () => {
    const r = parseAladdinXml(`<Tokens>
      <Token serial="00040008CFA5"><ProductName>Safeword Alpine</ProductName>
        <Applications><Application ConnectorID="{x}"><Seed>${SEED}</Seed><MovingFactor>1</MovingFactor></Application></Applications>
      </Token>
      <Token serial="S256"><Applications><Application><Seed>${'ab'.repeat(32)}</Seed></Application></Applications></Token>
      <Token serial="NOSEED"/>
    </Tokens>`);
    expect(r.tokens.map((t) => [t.serial, t.type, t.hashlib, t.description])).toEqual([
      ['00040008CFA5', 'hotp', 'sha1', 'Safeword Alpine'],
      ['S256', 'hotp', 'sha256', undefined],
    ]);
    expect(r.rejected).toEqual([{ serial: 'NOSEED', source: 'Token 3', reason: "no element 'Seed'" }]);
    expect(() => parseAladdinXml('<Other/>')).toThrow(/no toplevel element Tokens/);
  });
});
