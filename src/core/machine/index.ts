// Machines (/machine/): the machines the machine resolvers list, filtered as privacyIDEA filters
// them; the tokens attached to machines for an application (machine tokens) and the
// authentication items the applications make of them.

export { type ApplicationCatalogue, applicationCatalogue, effectiveOptions } from './applications.ts';
export { listMachineTokens, type MachineTokenQuery, type MachineTokenRecord } from './attachment-list.ts';
export {
  type AttachmentSelector,
  type AttachRequest,
  attachToken,
  detachToken,
  setAttachmentOptions,
} from './attachments.ts';
export { type AuthItemRequest, authItems } from './authitems.ts';
export { issueAuthItems, type PresentedPass, refillAuthItems } from './issue.ts';
export { listMachines, type MachineQuery, type MachineView } from './machines.ts';
