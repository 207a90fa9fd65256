import type { Window } from './window-store.js';

interface Lease {
  /** Requests this daemon may still let through in the store's current window. */
  tokens: number;
  /** End of the store window the tokens belong to (epoch ms of the clock the store uses). */
  until: number;
  /** The key is over its limit until then: refuse from memory. */
  refusedUntil: number;
  /** Size of the next batch, grown for a busy key (see nextSize). */
  size: number;
  /** Tokens spent since the last renewal started, and when it started: the key's request rate. */
  spent: number;
  since: number;
  pending?: Promise<void>;
}

export class LimitExceeded {
  constructor(readonly retryAfterMs: number) {}
}

/** A busy key's batch covers about this long of its traffic, so renewals stay a few per second. */
const BATCH_MS = 100;

/**
 * A high-rate limit over a shared store without a round trip per request: each daemon takes a
 * batch of a key's points at once and spends them locally until they run out or the store's
 * window ends, renewing in the background when half the batch is spent. Of each batch it keeps
 * only the points that still fit under the limit (the store counts the whole batch, so a later
 * batch sees it), hence the daemons together never let more than `points` through in one store
 * window. A batch is `leaseSize`, or for a key busier than leaseSize per 100 ms, its 100 ms of
 * traffic up to max(leaseSize, points / 20); what a daemon leased and had not spent when the
 * window ended is lost (the documented slack below the limit, docs/deployment.md).
 */
export class LeasedLimiter {
  private readonly leases = new Map<string, Lease>();
  private readonly maxSize: number;

  constructor(
    /** Counts n points of the key in the store, whatever the limit (the batch), and tells the count. */
    private readonly add: (key: string, n: number) => Promise<Window>,
    private readonly points: number,
    private readonly leaseSize: number,
    private readonly now: () => number,
  ) {
    this.maxSize = Math.min(points, Math.max(leaseSize, Math.floor(points / 20)));
  }

  /** Undefined when a local token was spent; otherwise a promise that resolves or rejects with LimitExceeded. */
  take(key: string): Promise<void> | undefined {
    const lease = this.leases.get(key);
    const now = this.now();
    if (lease && lease.tokens > 0 && lease.until > now) {
      lease.tokens--;
      lease.spent++;
      if (lease.tokens * 2 < lease.size && !lease.pending && lease.refusedUntil <= now) this.renewInBackground(key, lease);
      return undefined;
    }
    return this.takeSlow(key);
  }

  private async takeSlow(key: string): Promise<void> {
    let lease = this.leases.get(key);
    if (!lease) {
      if (this.leases.size > 50_000) this.sweep();
      lease = { tokens: 0, until: 0, refusedUntil: 0, size: Math.min(this.leaseSize, this.points), spent: 0, since: this.now() };
      this.leases.set(key, lease);
    }
    for (;;) {
      const now = this.now();
      if (lease.tokens > 0 && lease.until > now) {
        lease.tokens--;
        lease.spent++;
        return;
      }
      if (lease.refusedUntil > now) throw new LimitExceeded(lease.refusedUntil - now);
      // Concurrent requests of one key share one store round trip.
      await (lease.pending ?? this.renewInBackground(key, lease));
    }
  }

  private renewInBackground(key: string, lease: Lease): Promise<void> {
    const pending = this.renew(key, lease).finally(() => (lease.pending = undefined));
    lease.pending = pending;
    // A background renewal's failure surfaces to the requests that wait for it, not here.
    pending.catch(() => undefined);
    return pending;
  }

  private async renew(key: string, lease: Lease): Promise<void> {
    const size = this.nextSize(lease);
    const res = await this.add(key, size);
    // Keep the part of the batch that was still under the limit (the store counted it all).
    const granted = Math.max(0, Math.min(size, this.points - (res.count - size)));
    const now = this.now();
    const until = Math.max(res.resetAt, now);
    // Tokens left from an earlier batch stay good while their window lasts: a background
    // renewal that comes back refused or in a new window does not take them away.
    const sameWindow = lease.until > now && Math.abs(until - lease.until) < 1000;
    if (granted > 0) {
      lease.tokens = (sameWindow ? lease.tokens : 0) + granted;
      lease.until = until;
    } else {
      lease.refusedUntil = Math.max(until, now + 1);
    }
  }

  /** leaseSize, or about BATCH_MS of this key's recent traffic when that is more (up to maxSize). */
  private nextSize(lease: Lease): number {
    const now = this.now();
    const elapsed = Math.max(1, now - lease.since);
    const wanted = Math.ceil((lease.spent * BATCH_MS) / elapsed);
    lease.spent = 0;
    lease.since = now;
    lease.size = Math.max(Math.min(this.leaseSize, this.points), Math.min(this.maxSize, wanted));
    return lease.size;
  }

  /** Forget keys whose lease and refusal both ended: they hold no information. */
  private sweep(): void {
    const now = this.now();
    for (const [key, l] of this.leases) if (!l.pending && l.until <= now && l.refusedUntil <= now) this.leases.delete(key);
  }
}
