// Every machine application authsrv knows, by its API name.
import { ParameterError } from '../errors.ts';
import type { MachineApplication } from './application.ts';
import { luksApplication } from './luks.ts';
import { offlineApplication } from './offline.ts';
import { sshApplication } from './ssh.ts';

const APPLICATIONS: readonly MachineApplication[] = [sshApplication, offlineApplication, luksApplication];

/** The names of the applications, in the order they are listed. */
export function applicationNames(): string[] {
  return APPLICATIONS.map((a) => a.name);
}

/** The application of a name; an unknown one is a ParameterError naming the known ones. */
export function machineApplication(name: string): MachineApplication {
  const app = APPLICATIONS.find((a) => a.name === name);
  if (!app) {
    throw new ParameterError(`Unknown application '${name}': use ${applicationNames().join(', ')}`);
  }
  return app;
}
