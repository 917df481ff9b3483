// What the token types make of a privacyIDEA token's stored secrets (fromPrivacyidea), and the
// helpers they share (src/tokens/privacyidea.ts): the cases the imported fixture does not hold.
import { describe, expect, it } from 'vitest';
import { findTokenType, type PrivacyideaStoredToken, tokenTypes } from '../../src/tokens/index.ts';
import { carriedInfo, hexSeed, noSecret, textSecret } from '../../src/tokens/privacyidea.ts';

function stored(over: Partial<PrivacyideaStoredToken> = {}): PrivacyideaStoredToken {
  return { serial: 'S1', plaintext: '', userPin: undefined, info: [], ...over };
}

function converted(type: string, s: PrivacyideaStoredToken) {
  const t = findTokenType(type);
  if (!t?.fromPrivacyidea) throw new Error(`${type} has no fromPrivacyidea`);
  return t.fromPrivacyidea(s);
}

describe('privacyIDEA token conversion helpers', () => {
  it('carriedInfo seals `password` values again, leaves undecryptable and dropped keys out', () => {
    const info = [
      { key: 'a', value: '1', secret: false },
      { key: 'b', value: 'pw', secret: true },
      { key: 'c', value: undefined, secret: true },
      { key: 'd', value: 'x', secret: false },
    ];
    expect(carriedInfo(info, new Set(['d']))).toEqual([
      { key: 'a', value: '1', type: '' },
      { key: 'b', value: 'pw', type: 'password' },
    ]);
  });

  it('hexSeed takes hex text of either case, refuses other text and a wrong length', () => {
    expect(hexSeed(stored({ plaintext: '0aFF' }))).toEqual({ key: Buffer.from([0x0a, 0xff]), info: [] });
    expect(hexSeed(stored({ plaintext: 'xyz' }))).toEqual({ reason: 'its seed is not hex text' });
    expect(hexSeed(stored({ plaintext: '0aff' }), 16)).toEqual({
      reason: 'its key is not 32 hex characters',
    });
  });

  it('textSecret keeps the text, noSecret none', () => {
    expect(textSecret(stored({ plaintext: 'pässword' }))).toEqual({
      key: Buffer.from('pässword', 'utf8'),
      info: [],
    });
    expect(noSecret(stored({ plaintext: 'ignored' }))).toEqual({ key: undefined, info: [] });
  });
});

describe('fromPrivacyidea of the token types', () => {
  it('every token type authsrv has can take privacyIDEA tokens', () => {
    expect(
      tokenTypes()
        .filter((t) => !t.fromPrivacyidea)
        .map((t) => t.type),
    ).toEqual([]);
  });

  it('motp needs its PIN from user_pin and keeps it', () => {
    expect(converted('motp', stored({ plaintext: '0123456789abcdef' }))).toEqual({
      reason: 'it has no mOTP PIN (user_pin)',
    });
    expect(converted('motp', stored({ plaintext: '0123456789abcdef', userPin: '1234' }))).toMatchObject({
      keepsUserPin: true,
    });
  });

  it('a certificate token refuses a certificate that is not PEM, and keeps one without a certificate (pending)', () => {
    const bad = stored({ info: [{ key: 'certificate', value: 'not a certificate', secret: false }] });
    expect(converted('certificate', bad)).toEqual({
      reason: 'its tokeninfo certificate is not a PEM certificate',
    });
    const pending = stored({ info: [{ key: 'CA', value: 'ca1', secret: false }] });
    expect(converted('certificate', pending)).toEqual({
      key: undefined,
      info: [{ key: 'CA', value: 'ca1', type: '' }],
      leftOut: [],
    });
  });

  it('sshkey joins privacyIDEA three parts into one line', () => {
    const s = stored({
      info: [
        { key: 'ssh_type', value: 'ssh-ed25519', secret: false },
        { key: 'ssh_key', value: 'AAAAC3', secret: false },
        { key: 'ssh_comment', value: 'me@host', secret: false },
      ],
    });
    expect(converted('sshkey', s)).toEqual({
      key: undefined,
      info: [{ key: 'sshkey', value: 'ssh-ed25519 AAAAC3 me@host', type: '' }],
    });
  });
});
