// The machine applications (ssh, offline, luks): one interface (application.ts), one
// registry, one file per application. Core attaches tokens for them and asks them for the
// authentication items of the attached tokens.
export type {
  ApplicationOption,
  AttachedToken,
  Issue,
  IssuingToken,
  ItemFilter,
  ItemLookup,
  MachineApplication,
} from './application.ts';
export { applicationNames, machineApplication } from './registry.ts';
