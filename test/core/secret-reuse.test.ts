import { describe, expect, it } from 'vitest';
import { checkSecretReuse, destinationOf, type SecretReuse } from '../../src/core/secret-reuse.ts';
import { ParameterError } from '../../src/errors.ts';

const SPECS: SecretReuse['specs'] = {
  Host: { type: 'string' },
  Port: { type: 'int', default: '389' },
  Verify: { type: 'bool', default: 'True' },
  Account: { type: 'string' },
  Password: { type: 'password', destination: ['Host', 'Port', 'Verify', 'Account'] },
  Timeout: { type: 'int' },
};
const STORED = { Host: 'ldap.example.org', Account: 'reader', Password: 'pw', Timeout: '5' };

/** The check of a request that ends with `requested`, having given the keys of `given` itself. */
function check(requested: Record<string, string>, given: string[] = [], secrets = ['Password']) {
  return () =>
    checkSecretReuse({
      specs: SPECS,
      stored: STORED,
      requested,
      secrets: new Set(secrets),
      given: new Set(given),
    });
}

describe('checkSecretReuse', () => {
  it('lets a kept secret go to the destination it was stored for, whatever else changes', () => {
    expect(check({ ...STORED, Timeout: '9' }, ['Timeout'])).not.toThrow();
    // The same destination spelt as it takes effect: defaults, booleans and numbers normalised.
    expect(check({ ...STORED, Port: '389', Verify: 'true' }, ['Port', 'Verify'])).not.toThrow();
    expect(check({ ...STORED, Port: ' 0389 ' }, ['Port'])).not.toThrow();
  });

  it('refuses a kept secret (censored or not sent) for a changed destination, naming what changed', () => {
    expect(check({ ...STORED, Host: 'evil.example.org' }, ['Host'])).toThrow(
      new ParameterError(
        'Password must be given again: Host differs from the stored settings, and a stored secret is only ' +
          'used for the destination it was stored for',
      ),
    );
    expect(check({ ...STORED, Port: '1389', Verify: 'False', Account: 'admin' })).toThrow(
      /^Password must be given again: Port, Verify and Account differ from the stored settings/,
    );
    const { Host: _, ...withoutHost } = STORED;
    expect(check(withoutHost, ['Host'])).toThrow(/Host differs/);
  });

  it('lets a secret given again, or removed, go with any destination', () => {
    expect(
      check({ ...STORED, Host: 'evil.example.org', Password: 'new' }, ['Host', 'Password']),
    ).not.toThrow();
    expect(
      check({ ...STORED, Host: 'evil.example.org', Password: 'pw' }, ['Host', 'Password']),
    ).not.toThrow();
    const { Password: _, ...withoutPassword } = STORED;
    expect(check({ ...withoutPassword, Host: 'evil.example.org' }, ['Host', 'Password'])).not.toThrow();
  });

  it('applies to settings marked secret by an administrator, with the destinations of the declared ones', () => {
    expect(destinationOf(SPECS, 'Timeout')).toEqual(['Host', 'Port', 'Verify', 'Account']);
    const bothSecret = ['Password', 'Timeout'];
    expect(check({ ...STORED, Host: 'evil', Password: 'new' }, ['Host', 'Password'], bothSecret)).toThrow(
      /^Timeout must be given again: Host differs/,
    );
    // Every secret kept for a changed destination is named, the declared ones first.
    expect(check({ ...STORED, Host: 'evil' }, ['Host'], ['Timeout', 'Password'])).toThrow(
      /^Password and Timeout must be given again: Host differs/,
    );
    expect(destinationOf({ File: { type: 'string' } }, 'File')).toEqual([]);
  });
});
