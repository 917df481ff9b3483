// The token store: the one reader-writer of the token tables (token, tokeninfo, tokenowner,
// tokenrealm, tokengroup, tokengroup_token). Every INSERT, UPDATE and DELETE of them is a named
// function here, taking the caller's transaction where it runs inside one; no other file of src/
// writes them (test/core/token/store.test.ts fails on one that does). Loading a token with its
// tokeninfo, owner and realms; its sealed secret and hashed PIN; the counters, including the
// compare-and-set that accepts an OTP value once however many requests carry it.
export { insertTokenBatch, type NewToken } from './batch.ts';
export {
  advanceOtpCounter,
  changeFailcount,
  consumeOtp,
  incFailcount,
  resetFailcount,
  resetFailcounts,
  setFailcount,
  setOtpCounter,
} from './counters.ts';
export { deleteTokenRows } from './delete.ts';
export {
  deleteTokenGroupRow,
  insertTokenGroup,
  joinTokenGroup,
  leaveTokenGroup,
  setTokenGroupDescription,
  setTokenGroups,
} from './groups.ts';
export { addTokenInfo, deleteTokenInfo, setTokenInfo, setTokenInfoRacing } from './info.ts';
export { addToTokenInfo, bumpInfoCounterBelow, bumpInfoCounters, counterValue } from './info-counters.ts';
export { findToken, loadRows, requireToken, TOKEN_NOT_FOUND, tokensOfOwner } from './load.ts';
export { insertMigratedTokens, type MigratedToken, type TokenInfoEntry } from './migrated.ts';
export { setTokenOwner } from './owners.ts';
export { loadTokenPage, type TokenPage } from './page.ts';
export { setTokenRealms } from './realms.ts';
export { pinHash, pinMatches, sealKey, tokenState } from './secrets.ts';
export {
  insertToken,
  type Reenrollment,
  reenrollToken,
  revokeToken,
  setActive,
  setPin,
  setRolloutState,
  setTokenSettings,
  type TokenSettings,
} from './token-row.ts';
export type { Executor, LoadedToken, TokenOwner, TokenRow } from './types.ts';
