// The system configuration (/system/ setConfig and friends), random key material, the security
// module's state and the node's health (ready to serve or not).
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
export { health, isReady } from './health.ts';
export { hsmProtect, hsmState, hsmStatus, hsmUnlock, randomKey } from './system.ts';
