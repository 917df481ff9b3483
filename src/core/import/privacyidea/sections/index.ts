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
import { monitoringSection } from './monitoring.ts';
import { periodicTaskSection } from './periodictasks.ts';
import { policySection } from './policies.ts';
import { privacyideaServerSection } from './privacyideaservers.ts';
import { radiusServerSection } from './radiusservers.ts';
import { serviceIdSection } from './serviceids.ts';
import { smsGatewaySection } from './smsgateways.ts';
import { smtpServerSection } from './smtpservers.ts';

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
  // The resolvers and realms go here: the policies and custom user attributes below name them.
  policySection,
  customUserAttributeSection,
  eventHandlerSection,
  periodicTaskSection,
  monitoringSection,
  // Last: the trail of everything before it.
  auditSection,
];
