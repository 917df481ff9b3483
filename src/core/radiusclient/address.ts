// A RADIUS client's address: one IPv4 or IPv6 address, or a subnet in CIDR notation. Stored
// normalised (the network address and its prefix, `/32` and `/128` left out), matched against the
// source address of a datagram, the longest prefix winning when several clients cover it.
import { BlockList, isIP } from 'node:net';
import { ParameterError } from '../../errors.ts';

export interface ClientAddress {
  /** The normalised text: `10.0.0.0/8`, `192.0.2.7`, `2001:db8::/32`. */
  text: string;
  family: 'ipv4' | 'ipv6';
  prefix: number;
  list: BlockList;
}

function bitsOf(address: string, family: 'ipv4' | 'ipv6'): bigint {
  if (family === 'ipv4') return address.split('.').reduce((n, octet) => (n << 8n) | BigInt(octet), 0n);
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    address = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = address.split('::') as [string, string | undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  let parts = groups(head);
  if (tail !== undefined) {
    const rest = groups(tail);
    parts = [...parts, ...Array<string>(8 - parts.length - rest.length).fill('0'), ...rest];
  }
  return parts.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

function textOf(bits: bigint, family: 'ipv4' | 'ipv6'): string {
  if (family === 'ipv4') return [24n, 16n, 8n, 0n].map((s) => String((bits >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let i = 7n; i >= 0n; i--) groups.push(((bits >> (i * 16n)) & 0xffffn).toString(16));
  // The longest run of zero groups (two or more) becomes '::' (RFC 5952).
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLength).join(':')}`;
}

/** Parses and normalises an address or CIDR subnet; a ParameterError says what is wrong. */
export function parseClientAddress(input: string): ClientAddress {
  const given = input.trim();
  if (!given) throw ParameterError.missing('address');
  const [address = '', prefixText, extra] = given.split('/');
  const kind = isIP(address);
  if (kind === 0 || extra !== undefined || address.includes('%'))
    throw new ParameterError(
      `Invalid address '${given}': give an IPv4 or IPv6 address or a subnet in CIDR notation`,
    );
  const family = kind === 4 ? 'ipv4' : 'ipv6';
  const max = kind === 4 ? 32 : 128;
  let prefix = max;
  if (prefixText !== undefined) {
    prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
    if (prefix < 0 || prefix > max)
      throw new ParameterError(`Invalid prefix length in '${given}': give 0 to ${max}`);
  }
  const width = BigInt(max);
  const mask = ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefix))) - 1n);
  const network = textOf(bitsOf(address, family) & mask, family);
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { text: prefix === max ? network : `${network}/${prefix}`, family, prefix, list };
}

/** The family and plain address of a datagram's source (an IPv4-mapped IPv6 address as IPv4). */
export function sourceOf(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1]!, family: 'ipv4' };
  return { address, family: isIP(address) === 4 ? 'ipv4' : 'ipv6' };
}
