// The expensive hashes written in JavaScript, as jobs a hash worker runs (hash-worker.ts): SHA-crypt,
// phpass and bcrypt (bcryptjs). A job and its answer are plain data, since they cross between
// threads; runHashJob is synchronous, as a worker has nothing else to do meanwhile. argon2id and
// PBKDF2 need no worker: node:crypto runs them on libuv's thread pool.
import bcrypt from 'bcryptjs';
import { phpassChecksum } from './phpass.ts';
import { shaCryptChecksum } from './sha-crypt.ts';

export type HashJob =
  | { kind: 'sha-crypt'; id: '5' | '6'; password: string; salt: string; rounds: number }
  | { kind: 'phpass'; password: string; salt: string; log2: number }
  | { kind: 'bcrypt-compare'; password: string; hash: string }
  | { kind: 'bcrypt-hash'; password: string; cost: number };

/** What each kind of job answers: a checksum or hash as text, or whether the password matched. */
export type HashAnswer<J extends HashJob> = J extends { kind: 'bcrypt-compare' } ? boolean : string;

/** A worker's reply to one job. */
export type HashReply = { ok: true; value: string | boolean } | { ok: false; error: string };

export function runHashJob(job: HashJob): string | boolean {
  switch (job.kind) {
    case 'sha-crypt':
      return shaCryptChecksum(job.id, job.password, job.salt, job.rounds);
    case 'phpass':
      return phpassChecksum(job.password, job.salt, job.log2);
    case 'bcrypt-compare':
      return bcrypt.compareSync(job.password, job.hash);
    case 'bcrypt-hash':
      return bcrypt.hashSync(job.password, job.cost);
  }
}

/** Runs a job and never throws: a failure becomes a reply, so that the worker lives on. */
export function replyTo(job: HashJob): HashReply {
  try {
    return { ok: true, value: runHashJob(job) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}
