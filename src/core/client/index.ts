// Client applications (reference 4.1, 8.6): the addresses and user agents that asked /validate.
export { type ClientSeen, listClients, recordClient } from './client.ts';
