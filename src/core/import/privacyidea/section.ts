// One kind of privacyIDEA object an import carries over (tokens, resolvers, policies …). A section
// first plans from the privacyIDEA database alone, writing nothing: what it will import, what it
// cannot and why, and what already exists in authsrv. Only when every section planned without a
// conflict (and the run is not a dry run) are the plans written, in order, in one transaction.
import type { KeyObject } from 'node:crypto';
import type { Context } from '../../context.ts';
import type { PiKeys } from './keys.ts';
import type { PiSource } from './source.ts';

export interface ImportInput {
  source: PiSource;
  keys: PiKeys;
  /** PI_PEPPER: the prefix of every administrator password privacyIDEA hashed. */
  pepper: string;
  /** A file path of the privacyIDEA host as it is on this host (--map-path OLD=NEW). */
  mapPath(path: string): string;
  /**
   * The objects an earlier section (by name) will import: what a later object refers to may not
   * exist in authsrv yet when it is planned (a policy's realms). Empty for a section not planned.
   */
  planned(section: string): readonly string[];
  /** PI_AUDIT_KEY_PUBLIC: checks the audit rows' signatures (--audit-public-key), when given. */
  auditPublicKey?: KeyObject;
}

/** An object that is not imported, with the reason shown to the operator. */
export interface Skipped {
  object: string;
  reason: string;
}

export interface SectionPlan {
  /** The objects that will be imported, by the name shown to the operator. */
  objects: string[];
  skipped: Skipped[];
  /** Objects that already exist in authsrv under the same name: the import refuses to run. */
  conflicts: string[];
  /** What the operator should know of objects that are imported (a signature that failed …). */
  notes?: string[];
  /**
   * Writes the objects. `ctx.store.db` is the import's transaction, so the services called here
   * join it; `progress` is told how many objects are written so far.
   */
  write(ctx: Context, progress: (written: number) => void): Promise<void>;
}

export interface ImportSection {
  /** The section's name in the summary: `tokens`, `resolvers` … */
  name: string;
  /** Only with --with-audit. */
  optional?: 'audit';
  plan(input: ImportInput, ctx: Context): Promise<SectionPlan>;
}
