// Logging in (/auth): local administrators and realm users get a JWT with their role and rights;
// every API request's JWT is verified here; the audit columns of a login.
export { addAdmin, deleteAdmin, ensureInitialAdmin, listAdmins, setAdminPassword } from './admins.ts';
export { type LoginResult, login, verifyJwt } from './auth.ts';
export { FAILED_LOGIN_COLUMNS, loginColumns } from './login-audit.ts';
export { enrollableTypes } from './rights.ts';
