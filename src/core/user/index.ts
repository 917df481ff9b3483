// Users (/user/): listing the users of realms, editing users of editable stores, and their
// custom attributes.

export type { UserChanges } from '../../resolvers/index.ts';
export {
  deleteUserAttribute,
  editableAttributes,
  getUserAttributes,
  setUserAttribute,
} from './attributes.ts';
export {
  createUser,
  deleteUser,
  listUsers,
  targetUser,
  updateUser,
  userChanges,
  userToEdit,
} from './user.ts';
