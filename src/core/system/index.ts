// The system configuration (/system/ setConfig and friends), random key material, the security
// module's state and the GnuPG public keys.
export {
  CENSORED,
  type ConfigEntry,
  configFlag,
  configNumber,
  configSnapshot,
  configValue,
  deleteConfig,
  getConfigValue,
  listConfig,
  setConfig,
  setDefaults,
} from './config.ts';
export { gpgKeys, hsmStatus, hsmUnlock, randomKey } from './system.ts';
