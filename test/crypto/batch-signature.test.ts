import { generateKeyPairSync } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_LEAVES, signBatch, verifyBatchSignature } from '../../src/crypto/batch-signature.ts';
import { Signer } from '../../src/crypto/signer.ts';

const texts = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify([i + 1, `row ${i}`]));

describe('batch signatures (one RSA signature per Merkle root)', () => {
  let signer: Signer;
  let other: Signer;
  beforeAll(() => {
    signer = new Signer(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
    other = new Signer(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
  });

  it('verifies every text of batches of every shape, each alone', async () => {
    for (const n of [2, 3, 4, 5, 7, 8, 9, 16, 17, MAX_LEAVES, MAX_LEAVES + 1, 300]) {
      const t = texts(n);
      const sigs = await signBatch(signer, t);
      expect(sigs).toHaveLength(n);
      expect(sigs.every((s, i) => verifyBatchSignature(signer, t[i]!, s))).toBe(true);
    }
  });

  it('keeps the plain signature for a batch of one, and verifies plain signatures', async () => {
    const [sig] = await signBatch(signer, ['[1,"alone"]']);
    expect(sig).toMatch(/^rsa_sha256_pss:[0-9a-f]+$/);
    expect(signer.verify('[1,"alone"]', sig!)).toBe(true);
    expect(verifyBatchSignature(signer, '[1,"alone"]', sig!)).toBe(true);
    expect(verifyBatchSignature(signer, '[1,"other"]', sig!)).toBe(false);
  });

  it('signs a batch with one RSA signature per MAX_LEAVES texts', async () => {
    const rootSignature = (s: string) => s.split(':').at(-1);
    const sigs = await signBatch(signer, texts(MAX_LEAVES + 3));
    expect(new Set(sigs.slice(0, MAX_LEAVES).map(rootSignature)).size).toBe(1);
    expect(new Set(sigs.map(rootSignature)).size).toBe(2);
  });

  it('fails a changed text, a signature moved to another text, a changed path, another key', async () => {
    const t = texts(9);
    const sigs = await signBatch(signer, t);
    expect(verifyBatchSignature(signer, `${t[4]} `, sigs[4]!)).toBe(false);
    expect(verifyBatchSignature(signer, t[5]!, sigs[4]!)).toBe(false);
    // Another position with the same path and root.
    expect(verifyBatchSignature(signer, t[4]!, sigs[4]!.replace(/^merkle1:4:/, 'merkle1:5:'))).toBe(false);
    const [prefix, index, count, path, root] = sigs[4]!.split(':') as [
      string,
      string,
      string,
      string,
      string,
    ];
    const hashes = path.split('.');
    hashes[0] = Buffer.alloc(32, 7).toString('base64url');
    expect(
      verifyBatchSignature(signer, t[4]!, [prefix, index, count, hashes.join('.'), root].join(':')),
    ).toBe(false);
    // A path one hash short, or one too long.
    expect(
      verifyBatchSignature(signer, t[4]!, [prefix, index, count, hashes.slice(1).join('.'), root].join(':')),
    ).toBe(false);
    expect(
      verifyBatchSignature(signer, t[4]!, [prefix, index, count, `${path}.${hashes[0]}`, root].join(':')),
    ).toBe(false);
    expect(verifyBatchSignature(other, t[4]!, sigs[4]!)).toBe(false);
  });

  it('refuses malformed batch signatures without throwing', async () => {
    for (const bad of [
      'merkle1:',
      'merkle1:0:1::AAAA',
      'merkle1:5:5::AAAA',
      'merkle1:0:2:!!:AAAA',
      'merkle1:0:2:AA:AAAA',
    ]) {
      expect(verifyBatchSignature(signer, '[1]', bad)).toBe(false);
    }
  });

  it('fits the audit table’s 1 100-character signature column, also with a 4 096-bit key', async () => {
    const big = new Signer(generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey);
    for (const s of [signer, big]) {
      const sigs = await signBatch(s, texts(MAX_LEAVES));
      expect(Math.max(...sigs.map((x) => x.length))).toBeLessThanOrEqual(1100);
    }
  });
});
