// Tokens (/token/, /tokengroup/): enrollment with its policies, the token store (store/, the one
// writer of the token tables), the lifecycle actions, listings, token groups and token file imports.
export {
  changeFailcountOfToken,
  deleteInfoOfToken,
  increaseInfoOfToken,
  nameList,
  SETTABLE,
  type Settable,
  setDescriptions,
  setFailcountOfToken,
  setInfoOfToken,
  setRealmsOfToken,
  setTokenAttributes,
} from './attributes.ts';
export { deleteExpiredChallenges, listChallenges } from './challenges.ts';
export { copyPin, copyUser } from './copy.ts';
export { countTokenOwners, countTokens, type TokenCountFilter } from './counts.ts';
export { tokensCsv } from './csv.ts';
export { initToken, requestedTokenType } from './enroll.ts';
export { checkTokenLimits } from './enrollment-limits.ts';
export { enrollmentValue } from './enrollment-policy.ts';
export { type GetSerialQuery, serialByOtp } from './getserial.ts';
export {
  addTokenToGroup,
  deleteTokenGroup,
  listTokenGroups,
  removeTokenFromGroup,
  setGroupsOfToken,
  setTokenGroup,
} from './groups.ts';
export { type ImportResult, importTokens } from './import/import.ts';
export type { ImportRequest } from './import/token-file.ts';
export {
  assignToken,
  deleteTokens,
  enableTokens,
  resetTokens,
  revokeTokens,
  unassignTokens,
} from './lifecycle.ts';
export { type ListQuery, listTokens } from './list.ts';
export { lostToken } from './lost.ts';
export { outboxOf } from './outbox.ts';
export { ownerRecord, ownerUser } from './owner.ts';
export { setPins, setRandomPins } from './pin.ts';
export { resyncToken } from './resync.ts';
export { type Selection, tokenLockedError } from './select.ts';
export { typeSettings } from './settings.ts';
export {
  advanceOtpCounter,
  bumpInfoCounterBelow,
  bumpInfoCounters,
  consumeOtp,
  counterValue,
  deleteTokenInfo,
  deleteTokenRows,
  findToken,
  incFailcount,
  insertMigratedTokens,
  type LoadedToken,
  loadRows,
  type MigratedToken,
  pinHash,
  pinMatches,
  requireToken,
  resetFailcount,
  resetFailcounts,
  sealKey,
  setActive,
  setTokenInfoRacing,
  setTokenOwner,
  type TokenInfoEntry,
  tokenState,
  tokensOfOwner,
} from './store/index.ts';
export { testTokenConfig } from './test-config.ts';
export { outsideValidityPeriod, storedMinuteTime } from './tokeninfo-dates.ts';
export { type TokenView, tokenView } from './view.ts';
