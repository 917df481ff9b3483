// One RSA signature for a batch of texts: the texts are the leaves of a SHA-256 Merkle tree, the
// root is signed once, and each text's signature is its position, the sibling hashes on its path
// to the root and the root's signature. Each text is still verified alone (its path rebuilds the
// root), and changing, swapping or renumbering one fails it as with a signature of its own.
// A batch of one keeps the plain `rsa_sha256_pss:<hex>` signature of the text itself.
import { createHash } from 'node:crypto';
import type { Signer } from './signer.ts';

const PREFIX = 'merkle1';
const RSA_PREFIX = 'rsa_sha256_pss:';
/**
 * Texts under one root: a path of at most 7 hashes keeps a signature within the 1 100 characters
 * of the audit table's column even with a 4 096-bit key (7 × 44 + 683 + the numbers).
 */
export const MAX_LEAVES = 128;
/** What the root's signature covers: never a JSON text, so never mistaken for a plain row. */
const ROOT_LABEL = 'authsrv-merkle-root-v1:';

/** Leaves and inner nodes are hashed apart, so that an inner node cannot pass for a text. */
function leafHash(text: string): Buffer {
  return createHash('sha256').update(Buffer.of(0)).update(text, 'utf8').digest();
}

function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256').update(Buffer.of(1)).update(left).update(right).digest();
}

/** Signatures of `texts` in their order, with one RSA signature per MAX_LEAVES texts. */
export async function signBatch(signer: Signer, texts: readonly string[]): Promise<string[]> {
  const groups: Promise<string[]>[] = [];
  for (let i = 0; i < texts.length; i += MAX_LEAVES)
    groups.push(signTree(signer, texts.slice(i, i + MAX_LEAVES)));
  return (await Promise.all(groups)).flat();
}

async function signTree(signer: Signer, texts: readonly string[]): Promise<string[]> {
  if (texts.length === 1) return [await signer.signAsync(texts[0]!)];
  // levels[0] are the leaves; an odd node out goes up unchanged.
  const levels: Buffer[][] = [texts.map(leafHash)];
  for (let level = levels[0]!; level.length > 1; ) {
    const up: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      up.push(i + 1 < level.length ? nodeHash(level[i]!, level[i + 1]!) : level[i]!);
    }
    levels.push(up);
    level = up;
  }
  const root = levels[levels.length - 1]![0]!;
  const signed = await signer.signAsync(ROOT_LABEL + root.toString('hex'));
  const rootSignature = Buffer.from(signed.slice(RSA_PREFIX.length), 'hex').toString('base64url');
  return texts.map((_, index) => {
    const path: string[] = [];
    let i = index;
    for (const level of levels.slice(0, -1)) {
      const sibling = i % 2 === 1 ? level[i - 1] : level[i + 1];
      if (sibling) path.push(sibling.toString('base64url'));
      i = Math.floor(i / 2);
    }
    return `${PREFIX}:${index}:${texts.length}:${path.join('.')}:${rootSignature}`;
  });
}

/** The root a batch signature's path leads to from `text`, or undefined when the form is wrong. */
function rootOf(text: string, signature: string): { root: string; rootSignature: string } | undefined {
  const m = /^merkle1:(\d{1,4}):(\d{1,4}):([A-Za-z0-9_.-]*):([A-Za-z0-9_-]+)$/.exec(signature);
  if (!m) return undefined;
  let i = Number(m[1]);
  let n = Number(m[2]);
  if (n < 2 || n > MAX_LEAVES || i >= n) return undefined;
  const path = m[3] === '' ? [] : m[3]!.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (path.some((p) => p.length !== 32)) return undefined;
  let hash = leafHash(text);
  let used = 0;
  for (; n > 1; i = Math.floor(i / 2), n = Math.ceil(n / 2)) {
    if (i % 2 === 1) hash = nodeHash(path[used++] ?? Buffer.alloc(0), hash);
    else if (i + 1 < n) hash = nodeHash(hash, path[used++] ?? Buffer.alloc(0));
  }
  if (used !== path.length) return undefined;
  const rootSignature = RSA_PREFIX + Buffer.from(m[4]!, 'base64url').toString('hex');
  return { root: ROOT_LABEL + hash.toString('hex'), rootSignature };
}

/**
 * Whether `signature` (plain or of a batch) is the signer's signature of `text`. `rsaVerify` does
 * the RSA check (of the text, or of the root a batch signature leads to); a caller may cache it,
 * since the rows of one batch share their root.
 */
export function verifyBatchSignature(
  signer: Signer,
  text: string,
  signature: string,
  rsaVerify: (message: string, signature: string) => boolean = (m, s) => signer.verify(m, s),
): boolean {
  if (!signature.startsWith(`${PREFIX}:`)) return rsaVerify(text, signature);
  const found = rootOf(text, signature);
  return found !== undefined && rsaVerify(found.root, found.rootSignature);
}
