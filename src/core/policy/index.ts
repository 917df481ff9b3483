// Policies (/policy/): stored, validated, listed, imported and exported, and kept compiled per
// database behind the policy change counter for the matching engine (src/policy); the policy
// definitions of the static table and the token types; the text form of an action for display.
export { type ApiActionDef, formatActionText } from '../../policy/index.ts';
export { policyDefinitions } from './definitions.ts';
export { exportPolicies, importPolicies } from './file.ts';
export { importPoliciesReport } from './import-report.ts';
export {
  checkPolicy,
  compiledPolicies,
  deletePolicy,
  disablePolicy,
  enablePolicy,
  getPolicies,
  type PolicyFilter,
  policyDefs,
  renamePolicy,
  setPolicy,
} from './policy.ts';
export { LIST_FIELDS, type PolicyInput, type PolicyView } from './records.ts';
