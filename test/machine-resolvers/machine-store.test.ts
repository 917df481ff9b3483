// privacyIDEA's matching of machines: id, hostname and any are substrings, ip is exact, all given
// filters must match.
import { describe, expect, it } from 'vitest';
import { machineMatches } from '../../src/machine-resolvers/machine-store.ts';

const web = { id: '10.0.0.2', hostname: ['web1', 'web1.lab'], ip: '10.0.0.2' };
const dn = { id: 'cn=db1,ou=hosts', hostname: ['db1'], ip: '' };

describe('machineMatches', () => {
  it('matches substrings of id and hostname, the exact address, and any of the three', () => {
    expect(machineMatches(web, {})).toBe(true);
    expect(machineMatches(web, { id: '0.0.2' })).toBe(true);
    expect(machineMatches(web, { hostname: '.lab' })).toBe(true);
    expect(machineMatches(web, { hostname: 'db' })).toBe(false);
    expect(machineMatches(web, { ip: '10.0.0.2' })).toBe(true);
    expect(machineMatches(web, { ip: '10.0.0' })).toBe(false);
    expect(machineMatches(web, { any: 'web1.l' })).toBe(true);
    expect(machineMatches(dn, { any: 'ou=hosts' })).toBe(true);
    expect(machineMatches(dn, { any: '10.' })).toBe(false);
    expect(machineMatches(web, { hostname: 'web', ip: '10.0.0.3' })).toBe(false);
    // Case matters, as in privacyIDEA's hosts resolver.
    expect(machineMatches(web, { hostname: 'WEB' })).toBe(false);
  });
});
