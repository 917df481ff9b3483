// Every task module authsrv knows, by its identifier. EventCounter and SimpleStats (reference 7.2)
// join this list once monitoring exists: one file each implementing TaskModule.
import { ParameterError } from '../errors.ts';
import { auditRotation } from './audit-rotation.ts';
import { challengeCleanup } from './challenge-cleanup.ts';
import { crlRefresh } from './crl-refresh.ts';
import { inactiveTokenSweep } from './inactive-token-sweep.ts';
import type { TaskModule } from './task-module.ts';

const MODULES: readonly TaskModule[] = [challengeCleanup, auditRotation, inactiveTokenSweep, crlRefresh];

export function taskModuleNames(): string[] {
  return MODULES.map((m) => m.name);
}

export function taskModule(name: string): TaskModule {
  const module = MODULES.find((m) => m.name === name);
  if (!module) throw new ParameterError(`Unknown task module '${name}': use ${taskModuleNames().join(', ')}`);
  return module;
}
