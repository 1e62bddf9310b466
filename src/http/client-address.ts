import { BlockList, isIP } from 'node:net';

/** Finds the client's address from the socket peer and `X-Forwarded-For` (SVC_TRUST_PROXY). */
export type ClientAddressResolver = (peer: string | undefined, forwardedFor: string | string[] | undefined) => string;

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:127.0.0.1` becomes `127.0.0.1`, so one client has one spelling in logs and rate limits. */
export function normalizeAddress(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  return mapped === null ? address : (mapped[1] as string);
}

/** Compiles SVC_TRUST_PROXY entries (addresses, CIDR ranges) once into a matcher. */
export function createTrustMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  // BlockList matches IPv4-mapped IPv6 addresses against IPv4 rules and the other way round.
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

// One X-Forwarded-For entry: a bare address, `[v6]`, `[v6]:port` or `v4:port`; null when malformed.
function parseHop(raw: string): string | null {
  const hop = raw.trim();
  if (isIP(hop) !== 0) return normalizeAddress(hop);
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop);
  if (bracketed !== null) return isIP(bracketed[1] as string) === 6 ? normalizeAddress(bracketed[1] as string) : null;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(hop);
  if (withPort !== null && isIP(withPort[1] as string) === 4) return withPort[1] as string;
  return null;
}

/**
 * The right-most untrusted hop: X-Forwarded-For is read from the right, skipping trusted proxies,
 * and only when the socket peer itself is trusted. A malformed entry stops the walk: the client is
 * then the trusted hop that reported it, since the entry's text is not an address anyone vouches for.
 */
export function createClientAddressResolver(trustProxy: readonly string[]): ClientAddressResolver {
  if (trustProxy.length === 0) return (peer) => normalizeAddress(peer ?? '');
  const isTrusted = createTrustMatcher(trustProxy);
  return (peer, forwardedFor) => {
    let client = normalizeAddress(peer ?? '');
    if (forwardedFor === undefined || !isTrusted(client)) return client;
    // node:http joins repeated X-Forwarded-For lines with commas; an array only comes from embedders.
    const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseHop(hops[i] as string);
      if (hop === null) return client;
      client = hop;
      if (!isTrusted(hop)) return hop;
    }
    // Every hop is a trusted proxy: the left-most one is as far as anyone can see.
    return client;
  };
}

/** True for host names and addresses only this machine can reach (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  const address = normalizeAddress(host.toLowerCase());
  return address === 'localhost' || address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}
