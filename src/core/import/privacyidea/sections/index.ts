// The sections of a privacyIDEA import, in the order they are written: what an object refers to
// (a resolver, a realm, a CA connector) is written before it.
import type { ImportSection } from '../section.ts';
import { machineTokenSection } from './machinetokens.ts';
import { realmSection } from './realms.ts';
import { resolverSection } from './resolvers.ts';
import { serviceIdSection } from './serviceids.ts';
import { tokenGroupSection } from './tokengroups.ts';
import { tokenSection } from './tokens.ts';

export const SECTIONS: readonly ImportSection[] = [
  serviceIdSection,
  resolverSection,
  realmSection,
  tokenGroupSection,
  tokenSection,
  machineTokenSection,
];
