// The entry of a hash worker thread (hash-pool.ts starts it): answers each job it is sent, one at
// a time. Run from this file under Node, and from a bundled copy embedded in the single executable
// (scripts/build-binary.ts), so it imports nothing but the hash jobs and Node's built-ins.
import { parentPort } from 'node:worker_threads';
import { type HashJob, replyTo } from './hash-jobs.ts';

parentPort?.on('message', (job: HashJob) => parentPort?.postMessage(replyTo(job)));
