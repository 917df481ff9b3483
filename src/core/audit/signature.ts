// The signature of an audit row: the text it covers, and checking it (with the results kept, since
// the same pages are read again and again).
import { verifyBatchSignature } from '../../crypto/index.ts';
import type { Runtime } from '../context.ts';
import { COLUMNS, KINDS } from './columns.ts';

/** The columns of authsrv's own rows: all but the import mark, in the order of COLUMNS. */
const OWN_COLUMNS = COLUMNS.filter((c) => !('importMark' in c));

/**
 * The text a row's signature covers: its id and its stored values, in COLUMNS' order. The id is
 * part of it, like privacyIDEA's, so that the contents of two rows cannot be swapped (or a row
 * renumbered) without the signatures failing; the fixed order keeps it the same on every dialect.
 */
export function signedText(id: number, row: Readonly<Record<string, unknown>>): string {
  // An imported row's mark is signed too (after the rest): removing or adding one fails the row.
  const signed = row.imported_from ? COLUMNS : OWN_COLUMNS;
  return JSON.stringify(signed.map((c) => KINDS[c.kind].sign(c.kind === 'id' ? id : row[c.column])));
}

/**
 * Results of RSA checks of rows read, by signature and signed message, per signer: the same pages
 * are read again and again (an RSA check costs about 70 µs of the event loop), the rows of one
 * batch share one signed root, and the result of a check depends on nothing else. A changed row
 * has another text (or leads to another root) and is checked anew.
 */
const checkedSignatures = new WeakMap<object, Map<string, boolean>>();
const CHECKED_SIGNATURES_MAX = 4096;

/** Whether a stored row's signature is good. */
export function signatureOk(
  rt: Runtime,
  row: Readonly<Record<string, unknown>> & { id: number; signature: string },
): boolean {
  const signer = rt.keys.signer;
  let checked = checkedSignatures.get(signer);
  if (!checked) {
    checked = new Map();
    checkedSignatures.set(signer, checked);
  }
  const cache = checked;
  return verifyBatchSignature(signer, signedText(row.id, row), row.signature, (message, sig) => {
    if (!sig) return false;
    const key = `${sig}\n${message}`;
    let ok = cache.get(key);
    if (ok === undefined) {
      ok = signer.verify(message, sig);
      if (cache.size >= CHECKED_SIGNATURES_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(key, ok);
    }
    return ok;
  });
}
