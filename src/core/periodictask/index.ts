// Periodic tasks (/periodictask/, reference 7.2): their definitions, and the scheduler that runs
// them on the nodes they name, once per node and run, claimed in the database.
export { STALE_RUN_MS } from './claims.ts';
export {
  deletePeriodicTask,
  getPeriodicTask,
  listPeriodicTasks,
  type PeriodicTask,
  periodicTaskModules,
  periodicTaskNodes,
  periodicTaskOptions,
  savePeriodicTaskNamed,
  setPeriodicTask,
  setPeriodicTaskActive,
  type TaskInput,
  type TaskView,
  viewOf,
} from './definitions.ts';
export {
  isDue,
  type RunOutcome,
  runPeriodicTaskNow,
  type SchedulerHandle,
  startScheduler,
  TaskScheduler,
  TICK_PATTERN,
} from './scheduler.ts';
