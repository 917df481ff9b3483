// The registry of machine applications: known names, and a clear error for an unknown one.
import { describe, expect, it } from 'vitest';
import { applicationNames, machineApplication } from '../../src/applications/index.ts';

describe('machine application registry', () => {
  it('finds an application by name and refuses an unknown one naming the known ones', () => {
    expect(applicationNames()).toEqual(['ssh', 'offline', 'luks']);
    expect(machineApplication('offline').name).toBe('offline');
    expect(machineApplication('ssh').name).toBe('ssh');
    expect(machineApplication('luks').name).toBe('luks');
    expect(() => machineApplication('SSH')).toThrow("Unknown application 'SSH': use ssh, offline, luks");
    expect(() => machineApplication('vpn')).toThrow("Unknown application 'vpn': use ssh, offline, luks");
  });
});
