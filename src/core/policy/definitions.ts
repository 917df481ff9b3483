// The policy definitions of this server: the static table and the registered token types
// (src/policy/definitions.ts), computed once on first use. Nothing registers actions at import
// time, so the definitions never depend on which module was loaded first.
import { definitionsFor, type PolicyDefinitions } from '../../policy/index.ts';
import { tokenTypes } from '../../tokens/index.ts';

let definitions: PolicyDefinitions | undefined;

export function policyDefinitions(): PolicyDefinitions {
  definitions ??= definitionsFor(tokenTypes());
  return definitions;
}
