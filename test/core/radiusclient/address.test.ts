// A RADIUS client's address: IPv4 and IPv6 addresses and CIDR subnets normalised, bad ones refused
// with a clear message, and the sources (IPv4-mapped IPv6 too) they cover.
import { describe, expect, it } from 'vitest';
import { parseClientAddress, sourceOf } from '../../../src/core/radiusclient/address.ts';

describe('RADIUS client addresses', () => {
  it('normalises addresses and subnets', () => {
    expect(parseClientAddress(' 192.0.2.7 ').text).toBe('192.0.2.7');
    expect(parseClientAddress('192.0.2.7/32').text).toBe('192.0.2.7');
    expect(parseClientAddress('10.1.2.3/8').text).toBe('10.0.0.0/8');
    expect(parseClientAddress('0.0.0.0/0').text).toBe('0.0.0.0/0');
    expect(parseClientAddress('2001:DB8:0:0:0:0:0:1').text).toBe('2001:db8::1');
    expect(parseClientAddress('2001:db8:1:2::5/32').text).toBe('2001:db8::/32');
    expect(parseClientAddress('::1').text).toBe('::1');
    expect(parseClientAddress('fe80::1:0:0:1/128').text).toBe('fe80::1:0:0:1');
    expect(parseClientAddress('::ffff:192.0.2.1').text).toBe('::ffff:c000:201');
    expect(parseClientAddress('10.0.0.1/24').prefix).toBe(24);
  });

  it('refuses what is not an address or subnet', () => {
    for (const bad of [
      '',
      'host.example',
      '10.0.0.1/33',
      '10.0.0.1/x',
      '1.2.3.4/8/9',
      '::1/129',
      'fe80::1%eth0',
    ])
      expect(() => parseClientAddress(bad)).toThrow(/address|prefix/);
  });

  it('covers the sources of its subnet, IPv4-mapped IPv6 sources as IPv4', () => {
    const net = parseClientAddress('127.0.0.0/8');
    const from = sourceOf('::ffff:127.0.0.5');
    expect(from).toEqual({ address: '127.0.0.5', family: 'ipv4' });
    expect(net.list.check(from.address, from.family)).toBe(true);
    expect(net.list.check('128.0.0.1', 'ipv4')).toBe(false);
    const v6 = parseClientAddress('2001:db8::/32');
    expect(v6.list.check('2001:db8:ffff::1', 'ipv6')).toBe(true);
    expect(v6.list.check('2001:db9::1', 'ipv6')).toBe(false);
    expect(sourceOf('::1')).toEqual({ address: '::1', family: 'ipv6' });
  });
});
