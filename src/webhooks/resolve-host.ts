import { type LookupAddress, promises as dns } from 'node:dns';
import PQueue from 'p-queue';
import { within } from '../lib/deadline.js';

// The system resolver (getaddrinfo, dns.lookup) runs on libuv's thread pool, and libuv lets lookups hold at most half
// of its threads. A host whose DNS server stays silent holds one for the resolver's whole timeout (10 s by default),
// and every other lookup of the process queues behind: other receivers' hosts, a new PostgreSQL connection's host
// name. So DNS is asked through c-ares (sockets on the event loop, no thread, our deadline). The system resolver is
// still asked for what DNS does not have (/etc/hosts, search domains, mDNS), and when DNS does not answer: then
// through a line of one, so a silent DNS holds one thread at most, and a caller that gave up leaves the line.
// The price: a name DNS has is taken from DNS, so an /etc/hosts line overriding it is not followed (docs/webhooks.md).

/** DNS answered: no such name, or no address of that family. */
const NOT_IN_DNS = new Set(['ENOTFOUND', 'ENODATA']);

const unanswered = new PQueue({ concurrency: 1 });
const resolvers = new Map<number, dns.Resolver>();

/** A resolver that gives up within about half of `ms` (two tries), leaving the rest for the system resolver. */
function resolverFor(ms: number): dns.Resolver {
  let r = resolvers.get(ms);
  if (!r) resolvers.set(ms, (r = new dns.Resolver({ timeout: Math.max(1, Math.floor(ms / 6)), tries: 2 })));
  return r;
}

const errorCode = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code ?? '';

/** The addresses of `hostname` (IPv4 first), within `ms`; rejects with ENOTFOUND when it has none, ETIMEOUT when nobody answered in time. */
export async function resolveHost(hostname: string, ms: number): Promise<LookupAddress[]> {
  const started = Date.now();
  const late = () => Object.assign(new Error(`DNS did not answer for ${hostname} within ${ms} ms`), { code: 'ETIMEOUT' });
  const resolver = resolverFor(ms);
  const answers = await within(Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]), Math.ceil(ms / 2), late).catch(() => null);
  const found = (answers ?? []).flatMap((a, i) => (a.status === 'fulfilled' ? a.value.map((address) => ({ address, family: i === 0 ? 4 : 6 })) : []));
  if (found.length > 0) return found;
  const left = Math.max(1, ms - (Date.now() - started));
  // DNS said it has no such name: the system's other sources answer at once.
  if (answers?.every((a) => a.status === 'rejected' && NOT_IN_DNS.has(errorCode(a.reason)))) return within(dns.lookup(hostname, { all: true }), left, late);
  resolvers.delete(ms); // its servers may be gone (a new resolv.conf): the next lookup reads the system's again
  let waiting = true;
  const lookup = unanswered.add(async () => (waiting ? dns.lookup(hostname, { all: true }) : []));
  return within(lookup, left, () => {
    waiting = false;
    return late();
  });
}
