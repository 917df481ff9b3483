// The state of an installation at a glance (`authsrv status`, and `authsrv` alone).
export { type InstallationStatus, installationStatus, type RealmCount } from './status.ts';
