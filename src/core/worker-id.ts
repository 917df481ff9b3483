// This process among the server's processes (the workers of `authsrv serve`, several nodes): what
// privacyIDEA's answers call `detail.threadid` and its audit rows `thread_id` (there, the Python
// thread's id). A random number drawn once per process, so that an answer, its audit row and the
// process's log lines (which carry it as `threadid`) can be matched without telling a caller the
// process id.
import { randomInt } from 'node:crypto';

/** A positive integer below 2^48, fixed for the life of this process. */
export const WORKER_ID: number = randomInt(1, 2 ** 48 - 1);
