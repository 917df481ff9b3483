// Users (/user/): listing the users of realms, editing users of editable stores, and their
// custom attributes.
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
