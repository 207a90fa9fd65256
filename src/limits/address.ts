import { isIPv6 } from 'node:net';

/**
 * The key of a client address for every per-address limit: an IPv4 address as it is (also when
 * written IPv4-mapped, ::ffff:192.0.2.1), an IPv6 address by its /64, the smallest block a
 * host is usually given: one host rotating through its /64 is one client, not 2^64 of them.
 */
export function addressKey(address: string): string {
  return prefixKey(address, 4);
}

/**
 * The key of a client's network, for limits whose rows outlive the window (open registration):
 * an IPv4 address as addressKey keys it, an IPv6 address by its /48, the block a site or a free
 * tunnel account is given, which holds 65,536 /64s, each a client to addressKey.
 */
export function networkKey(address: string): string {
  return prefixKey(address, 3);
}

function prefixKey(address: string, groupsKept: number): string {
  const bare = address.split('%')[0]; // a zone index (fe80::1%eth0) names the interface, not the host
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups
    .slice(0, groupsKept)
    .map((g) => g.toString(16))
    .join(':')}::/${groupsKept * 16}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const groups = tail === undefined ? part(head) : [...part(head), ...Array<string>(8 - part(head).length - part(tail).length).fill('0'), ...part(tail)];
  return groups.map((g) => Number.parseInt(g, 16));
}
