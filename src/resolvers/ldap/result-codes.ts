// The LDAP result codes (RFC 4511 §4.1.9) the resolver tells apart.

export const REFERRAL = 10;
export const NO_SUCH_OBJECT = 32;
export const INVALID_DN_SYNTAX = 34;
export const INSUFFICIENT_ACCESS_RIGHTS = 50;
export const ENTRY_ALREADY_EXISTS = 68;

/** Results of a bind that mean "these credentials do not work" rather than a failure. */
export const CREDENTIAL_CODES: ReadonlySet<number> = new Set([
  48, // inappropriateAuthentication
  49, // invalidCredentials
  53, // unwillingToPerform (e.g. a disabled account)
]);
