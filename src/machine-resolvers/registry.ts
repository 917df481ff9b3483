// Every machine resolver kind authsrv knows, by its API type name.
import { ParameterError } from '../errors.ts';
import { hostsMachineResolver } from './hosts.ts';
import { ldapMachineResolver } from './ldap.ts';
import type { MachineResolverKind } from './machine-store.ts';

const KINDS: readonly MachineResolverKind[] = [hostsMachineResolver, ldapMachineResolver];

export function machineResolverKind(type: string): MachineResolverKind {
  const kind = KINDS.find((k) => k.type === type);
  if (!kind) {
    throw new ParameterError(
      `Unknown machine resolver type '${type}': use ${KINDS.map((k) => k.type).join(', ')}`,
    );
  }
  return kind;
}
