import { describe, expect, it } from 'vitest';
import { resolverKinds } from '../../src/resolvers/registry.ts';

describe('resolverKinds', () => {
  it('declares the destination of every secret setting with settings of its own kind', () => {
    const secrets: string[] = [];
    for (const kind of resolverKinds()) {
      for (const [name, spec] of Object.entries(kind.settings)) {
        if (spec.type !== 'password') continue;
        secrets.push(`${kind.type}.${name}`);
        expect(spec.destination.length, `${kind.type}.${name}`).toBeGreaterThan(0);
        for (const key of spec.destination) {
          expect(kind.settings[key], `${kind.type}.${name} → ${key}`).toBeDefined();
          expect(kind.settings[key]!.type, `${kind.type}.${name} → ${key}`).not.toBe('password');
        }
      }
    }
    expect(secrets).toEqual(['ldapresolver.BINDPW', 'sqlresolver.Password', 'scimresolver.Secret']);
  });
});
