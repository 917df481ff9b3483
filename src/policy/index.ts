// The policy engine: action definitions per scope, matching a request against compiled
// policies, action values and their grammars, and privacyIDEA's policy export file.
export { type ActionDict, formatActionText, parseActions } from './action-value.ts';
export { menusFor } from './admin-actions.ts';
export { pinContentsError, randomChars, randomPin } from './char-classes.ts';
export {
  type ActionDef,
  type ApiActionDef,
  boolAction,
  CONDITION_SECTIONS,
  definitionsFor,
  intAction,
  isScope,
  type PolicyDefinitions,
  type ScopedActions,
  strAction,
  type TokenTypeActions,
} from './definitions.ts';
export {
  type ActionValueOptions,
  type CompiledPolicy,
  type ConditionData,
  type ConditionTuple,
  clientMatches,
  compileClientList,
  compileConditions,
  compilePolicies,
  compilePolicy,
  listMatches,
  type MatchRequest,
  type PolicyRecord,
  PolicySet,
  parseDuration,
  parseTimeRanges,
  userAgentName,
} from './matcher.ts';
export { type FileValue, formatPolicyFile, parsePolicyFile } from './policy-file.ts';
