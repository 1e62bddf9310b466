import { isIPv4, isIPv6 } from 'node:net';

// Which addresses a webhook may not reach by default (docs/webhooks.md, Targets). A range is a prefix
// of the address's bytes; the name is what a refusal says. IANA's special-purpose registries list
// these as not globally reachable; multicast and the reserved 240.0.0.0/4 are not unicast at all.
const IPV4_RANGES: readonly (readonly [string, string])[] = [
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address (RFC 1918)'],
  ['100.64.0.0/10', 'a shared address (RFC 6598)'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['172.16.0.0/12', 'a private address (RFC 1918)'],
  ['192.0.0.0/24', 'an IETF protocol assignment (RFC 6890)'],
  ['192.0.2.0/24', 'a documentation address (RFC 5737)'],
  ['192.88.99.0/24', 'a deprecated 6to4 relay address (RFC 7526)'],
  ['192.168.0.0/16', 'a private address (RFC 1918)'],
  ['198.18.0.0/15', 'a benchmarking address (RFC 2544)'],
  ['198.51.100.0/24', 'a documentation address (RFC 5737)'],
  ['203.0.113.0/24', 'a documentation address (RFC 5737)'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
];

// IPv6 outside 2000::/3 is not global unicast; the names below only make the refusal clearer.
const IPV6_RANGES: readonly (readonly [string, string])[] = [
  ['::/96', 'an unspecified, loopback or IPv4-compatible address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address (RFC 8215)'],
  ['100::/64', 'a discard-only address (RFC 6666)'],
  ['2001::/23', 'an IETF protocol assignment (RFC 2928), Teredo included'],
  ['2001:db8::/32', 'a documentation address (RFC 3849)'],
  ['3fff::/20', 'a documentation address (RFC 9637)'],
  ['fc00::/7', 'a private address (unique local, RFC 4193)'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address (deprecated)'],
  ['ff00::/8', 'a multicast address'],
];
const GLOBAL_UNICAST = '2000::/3';

// IPv6 prefixes that carry an IPv4 address, where it starts: the IPv4 address is the one reached.
const CARRIERS: readonly (readonly [string, number, string])[] = [
  ['::ffff:0:0/96', 12, 'IPv4-mapped'],
  ['64:ff9b::/96', 12, 'NAT64'],
  ['2002::/16', 2, '6to4'],
];

interface Prefix {
  readonly bytes: readonly number[];
  readonly bits: number;
}

function ipv4Bytes(ip: string): number[] | null {
  return isIPv4(ip) ? ip.split('.').map(Number) : null;
}

function ipv6Bytes(ip: string): number[] | null {
  const bare = ip.replace(/%.*$/, ''); // a zone names the interface, not the address
  if (!isIPv6(bare)) return null;
  // The WHATWG serialization: lower-case hex groups, one `::` at most, no dotted tail.
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function prefix(cidr: string): Prefix {
  const [address = '', bits = ''] = cidr.split('/');
  const bytes = ipv4Bytes(address) ?? ipv6Bytes(address);
  if (bytes === null) throw new Error(`bad range ${cidr}`);
  return { bytes, bits: Number(bits) };
}

function within(bytes: readonly number[], { bytes: start, bits }: Prefix): boolean {
  if (bytes.length !== start.length) return false;
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = (0xff << (8 - Math.min(8, bits - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((start[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

const named = (table: readonly (readonly [string, string])[]): [Prefix, string][] => table.map(([cidr, name]) => [prefix(cidr), name]);
const V4 = named(IPV4_RANGES);
const V6 = named(IPV6_RANGES);
const V6_GLOBAL = prefix(GLOBAL_UNICAST);
const V6_CARRIERS = CARRIERS.map(([cidr, start, name]) => ({ range: prefix(cidr), start, name }));

function v4Range(bytes: readonly number[]): string | null {
  return V4.find(([range]) => within(bytes, range))?.[1] ?? null;
}

function v6Range(bytes: readonly number[]): string | null {
  const carrier = V6_CARRIERS.find(({ range }) => within(bytes, range));
  if (carrier !== undefined) {
    const inner = v4Range(bytes.slice(carrier.start, carrier.start + 4));
    return inner === null ? null : `${inner}, ${carrier.name}`;
  }
  const found = V6.find(([range]) => within(bytes, range));
  if (found !== undefined) return found[1];
  return within(bytes, V6_GLOBAL) ? null : 'not a global unicast address (outside 2000::/3)';
}

/** Why `ip` (an IPv4 or IPv6 address, any spelling Node accepts) may not be reached by default, or null when it may. */
export function forbiddenRange(ip: string): string | null {
  const v4 = ipv4Bytes(ip);
  if (v4 !== null) return v4Range(v4);
  const v6 = ipv6Bytes(ip);
  return v6 === null ? 'not an IP address' : v6Range(v6);
}

/** Whether a resolved address is one no webhook may reach by default; anything unparseable is. */
export function isForbiddenAddress(ip: string): boolean {
  return forbiddenRange(ip) !== null;
}
