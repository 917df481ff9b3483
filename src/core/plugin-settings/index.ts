// The stored settings of plug-in kinds (user resolvers, machine resolvers): merging a request into
// them (omitted parameters kept, __CENSORED__ keeping a secret under the destination rule), the
// checks, sealing and the censored view, names, and the test of unsaved settings. resolver/ and
// machineresolver/ both build on it, so that the two behave alike.
export {
  censoredView,
  checkName,
  mergeSettings,
  type OpenSettings,
  parseStored,
  type SettingsView,
  type StoredConfig,
  type StoredObject,
  seal,
  sealWithinLimit,
  secretSettingNames,
  settingsToSave,
  settingWarnings,
  testBase,
  testSettings,
} from './settings.ts';
