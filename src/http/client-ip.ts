// The caller's address: the socket peer, or, when that peer is a trusted proxy, the nearest
// address in X-Forwarded-For that is not itself a trusted proxy.
//
// Not proxy-addr (Express's), whose walk differs where test/http/client-ip.test.ts pins the rules:
// a hop that is no address (`unknown`, garbage) it returns as the client, and an empty one it
// skips, where here either ends the walk at the nearest trusted address; it takes no port or
// brackets off a hop (`203.0.113.5:51234`, `[2001:db8::5]:443`); it answers IPv4-mapped addresses
// still mapped; and it refuses the /0 ranges (`0.0.0.0/0`, `::/0`). The ranges are matched by
// Node's own net.BlockList.
import { BlockList, isIP } from 'node:net';

export class ClientAddress {
  private readonly trusted = new BlockList();
  private readonly any: boolean;

  constructor(trustedProxies: readonly string[]) {
    for (const entry of trustedProxies) {
      const [addr, bits] = entry.split('/') as [string, string | undefined];
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) this.trusted.addAddress(addr, type);
      else this.trusted.addSubnet(addr, Number(bits), type);
    }
    this.any = trustedProxies.length > 0;
  }

  private isTrusted(addr: string): boolean {
    const family = isIP(addr);
    return family !== 0 && this.trusted.check(addr, family === 6 ? 'ipv6' : 'ipv4');
  }

  resolve(peer: string | undefined, forwardedFor: string | undefined): string {
    const remote = normalise(peer ?? '');
    if (!this.any || !forwardedFor || !this.isTrusted(remote)) return remote;
    const hops = forwardedFor.split(',').map((h) => normalise(h.trim()));
    // Walk back from the hop our trusted peer appended. An entry that is no address ends the walk:
    // what lies left of it cannot be trusted, so the last trusted address seen is the answer.
    let nearest = remote;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) return nearest;
      if (!this.isTrusted(hop)) return hop;
      nearest = hop;
    }
    return nearest;
  }
}

/** Plain address text: IPv4-mapped IPv6 as IPv4, without brackets or a port some proxies append. */
function normalise(addr: string): string {
  let a = addr;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1]!;
  else if (/^\d{1,3}(?:\.\d{1,3}){3}:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  return a.toLowerCase().startsWith('::ffff:') && isIP(a.slice(7)) === 4 ? a.slice(7) : a;
}
