// Task modules of periodic tasks (/periodictask/): one interface, one registry, one file each.
export { taskModule, taskModuleNames } from './registry.ts';
export {
  type OptionSpec,
  type ParsedOptions,
  parseOptions,
  type RunSummary,
  type TaskModule,
} from './task-module.ts';
