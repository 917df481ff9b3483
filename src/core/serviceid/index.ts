// Service IDs (/serviceid/, reference 6.5): named services that applspec tokens (tokeninfo
// `service_id`) and, later, SSH keys attached to machines are used for. A service ID in use is
// not deleted (serviceIdUsers says who uses it).
export {
  deleteServiceId,
  listServiceIds,
  type ServiceIdView,
  serviceIdUsers,
  setServiceId,
} from './serviceid.ts';
