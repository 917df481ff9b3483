import { describe, expect, it } from 'vitest';
import { ClientAddress } from '../../src/http/client-ip.ts';

describe('ClientAddress', () => {
  it('uses the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    const a = new ClientAddress([]);
    expect(a.resolve('192.0.2.10', '203.0.113.5')).toBe('192.0.2.10');
    expect(a.resolve('192.0.2.10', undefined)).toBe('192.0.2.10');
    expect(a.resolve(undefined, '203.0.113.5')).toBe('');
  });

  it('takes X-Forwarded-For from a trusted single address only', () => {
    const a = new ClientAddress(['10.0.0.1']);
    expect(a.resolve('10.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
    expect(a.resolve('10.0.0.2', '203.0.113.5')).toBe('10.0.0.2');
    expect(a.resolve('10.0.0.1', undefined)).toBe('10.0.0.1');
    expect(a.resolve('10.0.0.1', '')).toBe('10.0.0.1');
  });

  it('matches IPv4 CIDR ranges', () => {
    const a = new ClientAddress(['10.0.0.0/8', '192.168.1.0/24']);
    expect(a.resolve('10.200.3.4', '203.0.113.5')).toBe('203.0.113.5');
    expect(a.resolve('192.168.1.254', '203.0.113.6')).toBe('203.0.113.6');
    expect(a.resolve('192.168.2.1', '203.0.113.6')).toBe('192.168.2.1');
    expect(a.resolve('11.0.0.1', '203.0.113.6')).toBe('11.0.0.1');
  });

  it('matches IPv6 addresses and CIDR ranges', () => {
    const a = new ClientAddress(['2001:db8::/32', '::1']);
    expect(a.resolve('2001:db8:1::7', '2001:db9::1')).toBe('2001:db9::1');
    expect(a.resolve('::1', '198.51.100.7')).toBe('198.51.100.7');
    expect(a.resolve('2001:db9::1', '198.51.100.7')).toBe('2001:db9::1');
  });

  it('walks a chain of proxies from the right, skipping the trusted ones', () => {
    const a = new ClientAddress(['10.0.0.0/8']);
    // client, then a trusted inner proxy that appended the outer proxy's view
    expect(a.resolve('10.0.0.1', '203.0.113.5, 10.1.1.1, 10.2.2.2')).toBe('203.0.113.5');
    // a spoofed left-most entry is ignored: the nearest untrusted hop is the client
    expect(a.resolve('10.0.0.1', '1.1.1.1, 198.51.100.9, 10.1.1.1')).toBe('198.51.100.9');
    // every hop trusted: the left-most one is the origin
    expect(a.resolve('10.0.0.1', '10.3.3.3, 10.4.4.4')).toBe('10.3.3.3');
    // whitespace variants
    expect(a.resolve('10.0.0.1', '  198.51.100.1 ,10.9.9.9  ')).toBe('198.51.100.1');
  });

  it('does not let a garbage hop hide the nearest untrusted address', () => {
    const a = new ClientAddress(['10.0.0.1']);
    expect(a.resolve('10.0.0.1', '198.51.100.1, not-an-ip')).toBe('10.0.0.1');
    expect(a.resolve('10.0.0.1', 'garbage')).toBe('10.0.0.1');
    expect(a.resolve('10.0.0.1', '198.51.100.1, , 10.0.0.1')).toBe('10.0.0.1');
    const b = new ClientAddress(['10.0.0.0/8']);
    expect(b.resolve('10.0.0.1', '198.51.100.1, unknown, 10.5.5.5')).toBe('10.5.5.5');
  });

  it('treats ::ffff: mapped IPv4 addresses as IPv4, for the peer and the hops', () => {
    const a = new ClientAddress(['127.0.0.1']);
    expect(a.resolve('::ffff:127.0.0.1', '203.0.113.5')).toBe('203.0.113.5');
    expect(a.resolve('::ffff:127.0.0.1', '::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(a.resolve('::ffff:192.0.2.1', '203.0.113.5')).toBe('192.0.2.1');
    const b = new ClientAddress(['10.0.0.0/8']);
    expect(b.resolve('10.0.0.1', '198.51.100.1, ::ffff:10.0.0.9')).toBe('198.51.100.1');
  });

  it('accepts hops with a port or in brackets, as some proxies write them', () => {
    const a = new ClientAddress(['10.0.0.1']);
    expect(a.resolve('10.0.0.1', '203.0.113.5:51234')).toBe('203.0.113.5');
    expect(a.resolve('10.0.0.1', '[2001:db8::5]:443')).toBe('2001:db8::5');
    expect(a.resolve('10.0.0.1', '[2001:db8::6]')).toBe('2001:db8::6');
  });

  it('does not confuse IPv4 rules with IPv6 peers', () => {
    const a = new ClientAddress(['0.0.0.0/0']);
    expect(a.resolve('2001:db8::1', '203.0.113.5')).toBe('2001:db8::1');
    const b = new ClientAddress(['::/0']);
    expect(b.resolve('2001:db8::1', '203.0.113.5')).toBe('203.0.113.5');
  });
});
