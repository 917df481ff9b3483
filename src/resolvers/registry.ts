// Every resolver type authsrv knows, by its API type name.
import { ParameterError } from '../errors.ts';
import { ldapResolver } from './ldap/index.ts';
import { passwdResolver } from './passwd.ts';
import { scimResolver } from './scim/index.ts';
import { sqlResolver } from './sql/index.ts';
import type { ResolverKind } from './user-store.ts';

const KINDS: readonly ResolverKind[] = [passwdResolver, ldapResolver, sqlResolver, scimResolver];

export function resolverKinds(): readonly ResolverKind[] {
  return KINDS;
}

export function resolverKind(type: string): ResolverKind {
  const kind = KINDS.find((k) => k.type === type);
  if (!kind) {
    throw new ParameterError(`Unknown resolver type '${type}': use ${KINDS.map((k) => k.type).join(', ')}`);
  }
  return kind;
}
