// The sections of a privacyIDEA import, in the order they are written: what an object refers to
// (a resolver, a realm, a CA connector) is written before it.
import type { ImportSection } from '../section.ts';
import { adminSection } from './admins.ts';
import { auditSection } from './audit.ts';
import { caConnectorSection } from './caconnectors.ts';
import { configSection } from './config.ts';
import { customUserAttributeSection } from './customuserattributes.ts';
import { eventHandlerSection } from './eventhandlers.ts';
import { machineResolverSection } from './machineresolvers.ts';
import { machineTokenSection } from './machinetokens.ts';
import { monitoringSection } from './monitoring.ts';
import { periodicTaskSection } from './periodictasks.ts';
import { policySection } from './policies.ts';
import { privacyideaServerSection } from './privacyideaservers.ts';
import { radiusServerSection } from './radiusservers.ts';
import { realmSection } from './realms.ts';
import { resolverSection } from './resolvers.ts';
import { serviceIdSection } from './serviceids.ts';
import { smsGatewaySection } from './smsgateways.ts';
import { smtpServerSection } from './smtpservers.ts';
import { tokenGroupSection } from './tokengroups.ts';
import { tokenSection } from './tokens.ts';

export const SECTIONS: readonly ImportSection[] = [
  serviceIdSection,
  configSection,
  adminSection,
  smtpServerSection,
  smsGatewaySection,
  radiusServerSection,
  privacyideaServerSection,
  caConnectorSection,
  machineResolverSection,
  // The policies and custom user attributes below name the resolvers and realms.
  resolverSection,
  realmSection,
  policySection,
  customUserAttributeSection,
  tokenGroupSection,
  tokenSection,
  // After the tokens and the machine resolvers they attach.
  machineTokenSection,
  eventHandlerSection,
  periodicTaskSection,
  monitoringSection,
  // Last: the trail of everything before it.
  auditSection,
];
