// The SSH key token (reference 3.1): a validated public key, never used for authentication.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import { parseSshKey, SshkeyType } from '../../src/tokens/sshkey.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const ssh = new SshkeyType();

/** An OpenSSH key blob: length-prefixed strings, the first naming the key type. */
function blob(...fields: (string | Buffer)[]): string {
  const parts = fields.map((f) => {
    const b = typeof f === 'string' ? Buffer.from(f) : f;
    const n = Buffer.alloc(4);
    n.writeUInt32BE(b.length);
    return Buffer.concat([n, b]);
  });
  return Buffer.concat(parts).toString('base64');
}

const ED = blob('ssh-ed25519', randomBytes(32));
const RSA = blob('ssh-rsa', Buffer.from([1, 0, 1]), randomBytes(257));
const ECDSA = blob('ecdsa-sha2-nistp256', 'nistp256', randomBytes(65));

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'SSHK0001', params, settings: { get: () => undefined }, now: new Date() };
}

describe('parseSshKey', () => {
  it('reads type, key and an optional comment with spaces', () => {
    expect(parseSshKey(`ssh-ed25519 ${ED} alice@host`)).toEqual({
      keyType: 'ssh-ed25519',
      key: ED,
      comment: 'alice@host',
    });
    expect(parseSshKey(`  ssh-rsa ${RSA}  my laptop key \n`)).toEqual({
      keyType: 'ssh-rsa',
      key: RSA,
      comment: 'my laptop key',
    });
    expect(parseSshKey(`ecdsa-sha2-nistp256 ${ECDSA}`).comment).toBe('');
  });

  it('refuses other types, bad Base64 and blobs of another type', () => {
    for (const bad of [
      '',
      'ssh-ed25519',
      `ssh-dss ${blob('ssh-dss', randomBytes(20))} x`,
      `ssh-ed25519 not*base64 x`,
      `ssh-ed25519 ${ED.slice(0, -1)} x`,
      `ssh-rsa ${ED} mislabelled`,
      `ssh-ed25519 ${Buffer.from('short').toString('base64')} x`,
    ])
      expect(() => parseSshKey(bad), bad).toThrow(ParameterError);
  });
});

describe('SshkeyType', () => {
  it('is registered, never challenges and never authenticates', () => {
    expect(findTokenType('sshkey')).toBeInstanceOf(SshkeyType);
    expect(ssh.prefix).toBe('SSHK');
    expect(ssh.challengeCapable).toBe(false);
    const s: TokenState = {
      serial: 'SSHK0001',
      type: 'sshkey',
      otplen: 6,
      count: 0,
      countWindow: 10,
      syncWindow: 1000,
      info: { sshkey: `ssh-ed25519 ${ED} c` },
      key: () => Buffer.alloc(0),
    };
    expect(ssh.checkOtp()).toBeNull();
    expect(ssh.checkResponse(s, '', '', new Date())).toBeNull();
  });

  it('stores the key in tokeninfo sshkey, without a secret, the comment as the description', async () => {
    const e = await ssh.enroll(request({ sshkey: `ssh-ed25519  ${ED}   alice@host ` }));
    expect(e).toEqual({
      info: { sshkey: `ssh-ed25519 ${ED} alice@host` },
      detail: {},
      description: 'alice@host',
    });
    expect(e.key).toBeUndefined();
    const bare = await ssh.enroll(request({ sshkey: `ssh-rsa ${RSA}` }));
    expect(bare.info.sshkey).toBe(`ssh-rsa ${RSA}`);
    expect(bare.description).toBeUndefined();
  });

  it('requires a well-formed sshkey', async () => {
    await expect(ssh.enroll(request({}))).rejects.toThrow("Missing parameter: 'sshkey'");
    await expect(ssh.enroll(request({ sshkey: 'ssh-rsa AAAA' }))).rejects.toThrow(ParameterError);
  });
});
