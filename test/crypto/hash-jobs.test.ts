// The jobs of the hash workers, run here on the test's own thread: the same answers as on a worker.
import { describe, expect, it } from 'vitest';
import { replyTo, runHashJob } from '../../src/crypto/hash-jobs.ts';

describe('runHashJob', () => {
  it('computes the checksums of SHA-crypt and phpass and compares bcrypt', () => {
    expect(
      runHashJob({ kind: 'sha-crypt', id: '6', password: 'Hello world!', salt: 'saltstring', rounds: 5000 }),
    ).toBe('svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1');
    expect(
      runHashJob({ kind: 'sha-crypt', id: '5', password: 'Hello world!', salt: 'saltstring', rounds: 5000 }),
    ).toBe('5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5');
    expect(runHashJob({ kind: 'phpass', password: 'test12345', salt: 'IQRaTwmf', log2: 11 })).toBe(
      'eRo7ud9Fh4E2PdI0S3r.L0',
    );
    const hash = '$2b$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu';
    expect(runHashJob({ kind: 'bcrypt-compare', password: 'correct horse', hash })).toBe(true);
    expect(runHashJob({ kind: 'bcrypt-compare', password: 'wrong', hash })).toBe(false);
    const made = runHashJob({ kind: 'bcrypt-hash', password: 'pw', cost: 4 });
    expect(runHashJob({ kind: 'bcrypt-compare', password: 'pw', hash: String(made) })).toBe(true);
  });

  it('replyTo turns a failure into a reply instead of throwing', () => {
    expect(replyTo({ kind: 'bcrypt-hash', password: 5 as unknown as string, cost: 4 })).toEqual({
      ok: false,
      error: expect.stringMatching(/Illegal arguments/),
    });
    expect(replyTo({ kind: 'phpass', password: 'test12345', salt: 'IQRaTwmf', log2: 11 })).toEqual({
      ok: true,
      value: 'eRo7ud9Fh4E2PdI0S3r.L0',
    });
  });
});
