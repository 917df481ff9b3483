// The sections of a privacyIDEA import, in the order they are written: what an object refers to
// (a resolver, a realm, a CA connector) is written before it.
import type { ImportSection } from '../section.ts';
import { auditSection } from './audit.ts';
import { serviceIdSection } from './serviceids.ts';

export const SECTIONS: readonly ImportSection[] = [
  serviceIdSection,
  // Last: the trail of everything before it.
  auditSection,
];
