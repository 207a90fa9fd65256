import { AppError } from '../../errors.js';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * In-memory token buckets, one per key: `perMinute` tokens, refilled continuously
 * (600/min = 10/s), so no 60 s window ever holds more than perMinute + the burst left over.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Take one token for `id`, or throw rate_limited with the whole seconds to wait (>= 1). */
  take(id: string): void {
    const now = this.now();
    let b = this.buckets.get(id);
    if (!b) {
      if (this.buckets.size > 50_000) this.sweep(now);
      b = { tokens: this.perMinute, at: now };
      this.buckets.set(id, b);
    } else {
      b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * this.perMs);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return;
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000));
    throw new AppError('rate_limited', 429, `Too many requests: at most ${this.perMinute} per minute per key. Retry in ${retryAfterSeconds} s.`, { details: { retryAfterSeconds } });
  }

  /** Drop buckets that have refilled completely: they hold no information. */
  private sweep(now: number): void {
    for (const [id, b] of this.buckets) if (b.tokens + (now - b.at) * this.perMs >= this.perMinute) this.buckets.delete(id);
  }
}
