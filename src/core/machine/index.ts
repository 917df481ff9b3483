// Machines (/machine/): the machines the machine resolvers list, filtered as privacyIDEA filters
// them. The tokens attached to machines (machine tokens, authentication items) come here too.
export { listMachines, type MachineQuery, type MachineView } from './machines.ts';
