// Every CA type authsrv knows (reference 8.5), in one table: adding a type is adding its file
// and one line here. privacyIDEA's `microsoft` type (a CA behind a middleware) is not built.
import { ParameterError } from '../errors.ts';
import type { CaType } from './ca-type.ts';
import { localCa } from './local.ts';

const TYPES: readonly CaType[] = [localCa];

export function caTypeNames(): string[] {
  return TYPES.map((t) => t.name);
}

/** The type of a name; unknown → a ParameterError listing the known ones. */
export function caType(name: string): CaType {
  const t = TYPES.find((x) => x.name === name);
  if (!t) throw new ParameterError(`Unknown CA type '${name}': use ${caTypeNames().join(', ')}`);
  return t;
}
