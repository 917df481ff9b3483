// Machine resolvers (/machineresolver/): named, typed settings of where machines are listed (a
// hosts file, an LDAP directory) with sealed secrets, their test, and the open machine store of
// each (for machine/). Deleting one whose machines are in use is refused (machineResolverUsers).
export {
  deleteMachineResolver,
  getMachineResolver,
  listMachineResolvers,
  type MachineResolverView,
  machineResolverSecretNames,
  machineResolverUsers,
  type SavedMachineResolver,
  saveMachineResolver,
  testMachineResolver,
} from './machineresolver.ts';
export { closeMachineStores, machineStoreOf } from './stores.ts';
