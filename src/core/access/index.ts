// What the caller may do (reference 5.3): the admin and user policy checks every service asks,
// the values of valued actions, and the realms an administrator is restricted to.
export {
  actionValue,
  actionValues,
  allow,
  grantedRealms,
  isAllowed,
  type Target,
  targetOf,
  unrestricted,
} from './access.ts';
