// The settings of a SCIM resolver as the API describes them. privacyIDEA's class reads the
// capitalised keys Authserver, Resourceserver, Client, Secret and Mapping while its descriptor lists
// authserver, resourceserver, authclient, authsecret and mapping, so both spellings are accepted
// (aliases). TIMEOUT (seconds, 5) bounds every lookup and every page of a search, the access token
// included; CACHE_TIMEOUT (seconds, 120; 0 = off) keeps found users.
import type { SettingSpec } from '../user-store.ts';

export const DEFAULT_MAPPING: Readonly<Record<string, string>> = {
  username: 'userName',
  userid: 'id',
  givenname: 'name.givenName',
  surname: 'name.familyName',
  email: 'emails.value',
  phone: 'phoneNumbers[type=work].value',
  mobile: 'phoneNumbers[type=mobile].value',
};

export const SCIM_SETTINGS = {
  Authserver: {
    type: 'string',
    required: true,
    description:
      'OAuth 2.0 authorisation server: its base URL (token endpoint <base>/oauth/token) or the token endpoint URL',
    aliases: ['authserver'],
  },
  Resourceserver: {
    type: 'string',
    required: true,
    description: 'SCIM service base URL; users are read from <Resourceserver>/Users',
    aliases: ['resourceserver'],
  },
  Client: {
    type: 'string',
    required: true,
    description: 'OAuth 2.0 client id (client-credentials grant)',
    aliases: ['authclient'],
  },
  Secret: {
    type: 'password',
    description: 'OAuth 2.0 client secret',
    aliases: ['authsecret'],
    // Sent to the token endpoint; the access token it buys goes to the resource server.
    destination: ['Authserver', 'Resourceserver', 'Client'],
  },
  Mapping: {
    type: 'json',
    description: 'JSON map privacyIDEA attribute → SCIM attribute path (e.g. emails[type=work].value)',
    default: JSON.stringify(DEFAULT_MAPPING),
    aliases: ['mapping'],
  },
  TIMEOUT: { type: 'int', description: 'Seconds a lookup may take, access token included', default: '5' },
  CACHE_TIMEOUT: { type: 'int', description: 'Seconds found users are cached (0: no cache)', default: '120' },
} satisfies Record<string, SettingSpec>;
