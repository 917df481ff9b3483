// Logging in (/auth): local administrators and realm users get a JWT with their role and rights;
// every API request's JWT is verified here, with the session it stands for (ended by deleting the
// administrator, a password change or `authsrv admin logout`); the audit columns of a login.
export {
  addAdmin,
  addImportedAdmin,
  deleteAdmin,
  ensureInitialAdmin,
  type ImportedAdmin,
  importedAdminRefusal,
  listAdmins,
  setAdminPassword,
} from './admins.ts';
export { type LoginResult, login, verifyJwt } from './auth.ts';
export { failedLoginColumns, loginColumns } from './login-audit.ts';
export { enrollableTypes } from './rights.ts';
export { type EndedSessions, endSessions } from './sessions.ts';
