// The machine resolver kinds by type name; an unknown one names those there are.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { machineResolverKind } from '../../src/machine-resolvers/index.ts';

describe('machineResolverKind', () => {
  it('knows hosts and ldap, and refuses any other type', () => {
    expect(machineResolverKind('hosts').type).toBe('hosts');
    expect(machineResolverKind('ldap').settings.BINDPW?.type).toBe('password');
    expect(() => machineResolverKind('ldapresolver')).toThrow(ParameterError);
    expect(() => machineResolverKind('nis')).toThrow("Unknown machine resolver type 'nis': use hosts, ldap");
  });
});
