// Every task module authsrv knows, by its identifier: privacyIDEA's EventCounter and SimpleStats
// (reference 7.2), then the housekeeping privacyIDEA leaves to cron jobs. One file each
// implementing TaskModule.
import { ParameterError } from '../errors.ts';
import { auditRotation } from './audit-rotation.ts';
import { challengeCleanup } from './challenge-cleanup.ts';
import { crlRefresh } from './crl-refresh.ts';
import { eventCounter } from './event-counter.ts';
import { inactiveTokenSweep } from './inactive-token-sweep.ts';
import { simpleStats } from './simple-stats.ts';
import type { TaskModule } from './task-module.ts';

const MODULES: readonly TaskModule[] = [
  eventCounter,
  simpleStats,
  challengeCleanup,
  auditRotation,
  inactiveTokenSweep,
  crlRefresh,
];

export function taskModuleNames(): string[] {
  return MODULES.map((m) => m.name);
}

export function taskModule(name: string): TaskModule {
  const module = MODULES.find((m) => m.name === name);
  if (!module) throw new ParameterError(`Unknown task module '${name}': use ${taskModuleNames().join(', ')}`);
  return module;
}
