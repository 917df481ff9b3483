// Policies (/policy/): stored, validated, listed, imported and exported, and kept compiled per
// database behind the policy change counter for the matching engine (src/policy); the policy
// definitions of the static table and the token types; the text form of an action for display.
export { type ApiActionDef, formatActionText } from '../../policy/index.ts';
export { policyDefinitions } from './definitions.ts';
export { importPoliciesReport } from './import-report.ts';
export {
  checkPolicy,
  compiledPolicies,
  deletePolicy,
  disablePolicy,
  enablePolicy,
  exportPolicies,
  getPolicies,
  importPolicies,
  LIST_FIELDS,
  type PolicyFilter,
  type PolicyInput,
  type PolicyView,
  policyDefs,
  renamePolicy,
  setPolicy,
} from './policy.ts';
