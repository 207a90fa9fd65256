import type { LookupAddress } from 'node:dns';
import net from 'node:net';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { resolveHost } from './resolve-host.js';

// SSRF protection (decisions.md, Targets): http and https only; loopback, private, link-local
// and other non-public addresses are refused unless the config allows them. The check runs on
// the URL when it is set and again on every address a delivery actually connects to (a custom
// `lookup`), so a DNS name that later resolves to 127.0.0.1 (rebinding) is still refused.

export type WebhookConfig = Config['webhooks'];

const blocked = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net4, prefix, 'ipv4');
// ::/96 (unspecified, loopback and the deprecated IPv4-compatible form) and fec0::/10 (the
// deprecated site-local range, still routed privately by some networks) are refused whole.
for (const [net6, prefix] of [['::', 96], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b:1::', 48]] as const) {
  blocked.addSubnet(net6, prefix, 'ipv6');
}

/** True for loopback, private, link-local, multicast and reserved addresses (IPv4 and IPv6). */
export function isNonPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true; // a zone id (fe80::1%eth0) or a form URL cannot read: refuse
  // Forms that carry an IPv4 address reach that address: judge it instead.
  const embedded = embeddedIpv4(groups);
  if (embedded) return blocked.check(embedded, 'ipv4');
  return blocked.check(groups.map((g) => g.toString(16)).join(':'), 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address, read through the WHATWG URL parser (any textual form). */
function ipv6Groups(address: string): number[] | null {
  let host: string;
  try {
    host = new URL(`http://[${address}]/`).hostname.slice(1, -1); // canonical: hex groups, at most one ::
  } catch {
    return null;
  }
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const hex = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = hex(head);
  const right = tail === undefined ? [] : hex(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

const zero = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
const ipv4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address inside an IPv4-mapped, IPv4-translated, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address, else null. */
function embeddedIpv4(g: number[]): string | null {
  if (zero(g, 0, 5) && g[5] === 0xffff) return ipv4Of(g[6], g[7]);
  if (zero(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4Of(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(g, 2, 6)) return ipv4Of(g[6], g[7]);
  if (g[0] === 0x2002) return ipv4Of(g[1], g[2]);
  return null;
}

const stripBrackets = (host: string) => host.replace(/^\[|\]$/g, '');

export const privateAllowed = (config: WebhookConfig, hostname: string): boolean =>
  config.allowPrivateNetworks || config.allowedHosts.some((h) => h.toLowerCase() === stripBrackets(hostname).toLowerCase());

export const ALLOW_HINT =
  'To allow it (development, or a receiver on this host): set webhooks.allowPrivateNetworks: true in the config file ' +
  '(or SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true), or add the exact host name to webhooks.allowedHosts (SVC_WEBHOOKS_ALLOWED_HOSTS); ' +
  'a daemon reads its settings when it starts: restart it after changing them.';

export const refusedTarget = (host: string, address: string) =>
  new AppError('webhook_target_refused', 400, `Refusing to send webhooks to ${host}: it is a loopback or private-network address (${address})`, { hint: ALLOW_HINT });

/** Parse and check a receiver URL's form (scheme, host; literal IP addresses). */
export function parseTargetUrl(raw: string, config: WebhookConfig): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('invalid_url', 400, `"${raw}" is not a valid URL`, { hint: 'Give the full address, e.g. https://blog.example.com/hooks/svc' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('invalid_url', 400, `Webhook URLs must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  // The column's size, counted on the URL as stored and sent (percent-encoded, host in ASCII).
  if (url.href.length > 2000) throw new AppError('invalid_url', 400, 'Webhook URLs may be at most 2000 characters long (once percent-encoded)');
  assertLiteralAllowed(url, config);
  const host = stripBrackets(url.hostname);
  if ((host === 'localhost' || host.endsWith('.localhost')) && !privateAllowed(config, url.hostname)) throw refusedTarget(url.hostname, 'loopback');
  return url;
}

/** Resolve the host now and refuse it when it points at a non-public address. Unresolvable hosts pass (checked again at delivery). */
export async function checkTargetResolves(url: URL, config: WebhookConfig): Promise<{ resolved: boolean }> {
  if (privateAllowed(config, url.hostname) || net.isIP(stripBrackets(url.hostname))) return { resolved: true };
  // A resolver that does not answer counts as unresolvable after webhooks.dnsTimeout.
  const addresses = await resolveHost(url.hostname, config.dnsTimeout).catch(() => null);
  if (!addresses) return { resolved: false };
  const bad = addresses.find((a) => isNonPublicAddress(a.address));
  if (bad) throw refusedTarget(url.hostname, bad.address);
  return { resolved: true };
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http.request, within webhooks.dnsTimeout, that refuses non-public addresses: those the socket actually connects to. */
export function guardedLookup(config: WebhookConfig) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : options;
    const fail = (err: NodeJS.ErrnoException) => callback(err, opts.all ? [] : '', undefined);
    resolveHost(hostname, config.dnsTimeout).then((all) => {
      const addresses = opts.family === 4 || opts.family === 6 ? all.filter((a) => a.family === opts.family) : all;
      if (addresses.length === 0) return fail(Object.assign(new Error(`${hostname} has no IPv${opts.family} address`), { code: 'ENOTFOUND' }));
      if (!privateAllowed(config, hostname)) {
        const bad = addresses.find((a) => isNonPublicAddress(a.address));
        if (bad) return fail(refusedTarget(hostname, bad.address) as unknown as NodeJS.ErrnoException);
      }
      if (opts.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    }, fail);
  };
}

/** Refuse a literal IP target at connect time (Node skips `lookup` for IP literals). */
export function assertLiteralAllowed(url: URL, config: WebhookConfig): void {
  const host = stripBrackets(url.hostname);
  if (net.isIP(host) && !privateAllowed(config, url.hostname) && isNonPublicAddress(host)) throw refusedTarget(url.hostname, host);
}
