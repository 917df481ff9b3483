// The caller's address: the socket peer, or, when that peer is a trusted proxy, the nearest
// address in X-Forwarded-For that is not itself a trusted proxy.
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
    const hops = forwardedFor
      .split(',')
      .map((h) => normalise(h.trim()))
      .filter((h) => isIP(h) !== 0);
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!this.isTrusted(hops[i]!)) return hops[i]!;
    }
    return hops[0] ?? remote;
  }
}

function normalise(addr: string): string {
  return addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4 ? addr.slice(7) : addr;
}
