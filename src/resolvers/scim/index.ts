// The SCIM user store (scimresolver), in files of one job: settings.ts (what the API shows),
// config.ts and path.ts (reading the settings and the Mapping's attribute paths), filter.ts (SCIM
// filters), client.ts (HTTP and the OAuth access token), store.ts (the user store), resolver.ts
// (the kind). Only the kind leaves this folder.
export { scimResolver } from './resolver.ts';
