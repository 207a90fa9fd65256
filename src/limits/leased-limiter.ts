import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

interface Lease {
  /** Requests this daemon may still let through in the store's current window. */
  tokens: number;
  /** End of the store window the tokens belong to (Date.now() ms, the clock the store uses). */
  until: number;
  /** The key is over its limit until then: refuse from memory. */
  refusedUntil: number;
  pending?: Promise<void>;
}

export class LimitExceeded {
  constructor(readonly retryAfterMs: number) {}
}

/**
 * A high-rate limit over a shared store without a round trip per request: each daemon takes
 * `leaseSize` points of a key at once and spends them locally until they run out or the store's
 * window ends. Of each batch it keeps only the points that still fit under the limit (the store
 * counts the whole batch, so a later batch sees it), hence the daemons together never let more
 * than `points` through in one store window; what a daemon leased and did not spend before the
 * window ended is lost, at most leaseSize - 1 per daemon and window.
 */
export class LeasedLimiter {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly store: RateLimiterAbstract,
    private readonly points: number,
    private readonly leaseSize: number,
  ) {}

  /** Undefined when a local token was spent; otherwise a promise that resolves or rejects with LimitExceeded. */
  take(key: string): Promise<void> | undefined {
    const lease = this.leases.get(key);
    if (lease && lease.tokens > 0 && lease.until > Date.now()) {
      lease.tokens--;
      return undefined;
    }
    return this.takeSlow(key);
  }

  private async takeSlow(key: string): Promise<void> {
    let lease = this.leases.get(key);
    if (!lease) {
      if (this.leases.size > 50_000) this.sweep();
      lease = { tokens: 0, until: 0, refusedUntil: 0 };
      this.leases.set(key, lease);
    }
    for (;;) {
      const now = Date.now();
      if (lease.refusedUntil > now) throw new LimitExceeded(lease.refusedUntil - now);
      if (lease.tokens > 0 && lease.until > now) {
        lease.tokens--;
        return;
      }
      // Concurrent requests of one key share one store round trip.
      lease.pending ??= this.renew(key, lease).finally(() => (lease.pending = undefined));
      await lease.pending;
    }
  }

  private async renew(key: string, lease: Lease): Promise<void> {
    const size = Math.min(this.leaseSize, this.points);
    let res: RateLimiterRes;
    let granted: number;
    try {
      res = await this.store.consume(key, size);
      granted = size;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res = err;
      // Refused from the in-memory block (consumedPoints 0), or the batch crossed the limit:
      // keep the part of it that was still under.
      granted = res.consumedPoints > 0 ? Math.max(0, Math.min(size, this.points - (res.consumedPoints - size))) : 0;
    }
    const until = Date.now() + Math.max(res.msBeforeNext, 0);
    if (granted > 0) {
      lease.tokens = granted;
      lease.until = until;
    } else {
      lease.tokens = 0;
      lease.refusedUntil = Math.max(until, Date.now() + 1);
    }
  }

  /** Forget keys whose lease and refusal both ended: they hold no information. */
  private sweep(): void {
    const now = Date.now();
    for (const [key, l] of this.leases) if (!l.pending && l.until <= now && l.refusedUntil <= now) this.leases.delete(key);
  }
}
