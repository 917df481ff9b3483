import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Signer } from '../../src/crypto/signer.ts';
import { opensslVerify } from '../helpers/signature.ts';

describe('Signer', () => {
  let dir: string;
  let signer: Signer;
  let pubFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'authsrv-signer-'));
    signer = new Signer(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    pubFile = join(dir, 'signing.pub');
    writeFileSync(pubFile, signer.publicKeyPem);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('produces rsa_sha256_pss:<lower-case hex> of the modulus size', () => {
    const sig = signer.sign('{"a": 1}');
    expect(sig).toMatch(/^rsa_sha256_pss:[0-9a-f]{512}$/);
  });

  it('is verified by the openssl CLI with PSS, SHA-256 and the maximum salt length', async () => {
    const text = '{"id": 1, "text": "\\u00e9"}';
    const hex = signer.sign(text).slice('rsa_sha256_pss:'.length);
    const ok = await opensslVerify(Buffer.from(text, 'utf8'), hex, pubFile);
    expect(ok.output).toContain('Verified OK');
    expect(ok.verified).toBe(true);
  });

  it('fails openssl verification for a tampered text or signature', async () => {
    const text = '{"value": true}';
    const hex = signer.sign(text).slice('rsa_sha256_pss:'.length);
    expect((await opensslVerify(Buffer.from('{"value": false}', 'utf8'), hex, pubFile)).verified).toBe(false);
    const flipped = (hex.slice(0, -2) + (hex.endsWith('00') ? '01' : '00')).padStart(hex.length, '0');
    expect((await opensslVerify(Buffer.from(text, 'utf8'), flipped, pubFile)).verified).toBe(false);
  });

  it('uses a random salt: two signatures of one text differ, both verify', () => {
    const a = signer.sign('same');
    const b = signer.sign('same');
    expect(a).not.toBe(b);
    expect(signer.verify('same', a)).toBe(true);
    expect(signer.verify('same', b)).toBe(true);
  });

  it('verify() refuses other texts, other keys and malformed signatures', () => {
    const sig = signer.sign('text');
    expect(signer.verify('text!', sig)).toBe(false);
    const other = new Signer(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    expect(other.verify('text', sig)).toBe(false);
    expect(signer.verify('text', sig.replace('rsa_sha256_pss:', ''))).toBe(false);
    expect(signer.verify('text', 'rsa_sha256_pss:zz')).toBe(false);
    expect(signer.verify('text', 'rsa_sha256_pss:')).toBe(false);
    expect(signer.verify('text', `${sig}00`)).toBe(false);
  });
});
