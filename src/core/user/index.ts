// Users (/user/): listing the users of realms, editing users of editable stores, and their
// custom attributes.

export type { UserChanges } from '../../resolvers/index.ts';
export {
  type AttributeOwner,
  deleteUserAttribute,
  deleteUserAttributeAsServer,
  editableAttributes,
  getUserAttributes,
  setUserAttribute,
  setUserAttributeAsServer,
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
