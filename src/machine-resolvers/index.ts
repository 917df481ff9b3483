// The machine resolver kinds (hosts file, LDAP): one interface (machine-store.ts), one registry,
// one file per kind. They share the settings description and the LDAP connections of the user
// stores (src/resolvers).
export type { Machine, MachineFilter, MachineResolverKind, MachineStore } from './machine-store.ts';
export { machineResolverKind } from './registry.ts';
