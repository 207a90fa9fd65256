import { AppError } from '../errors.js';

export const TOO_MANY_CALLS = 'Too many MCP calls';

/**
 * "More than 120 calls a minute" per connection or key, as a sliding window: a call is refused
 * when `limit` calls were accepted in the 60 s before it. Kept in memory (per daemon process);
 * only accepted calls count, so a client that keeps retrying early does not lock itself out.
 */
export class CallRateLimiter {
  private readonly calls = new Map<string, number[]>();
  private sweeps = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /**
   * Count `count` calls (the requests of one POST, a JSON-RPC batch included) for `id` at
   * `nowMs`, all or none, or throw a 429 rate_limited with retryAfterSeconds.
   */
  take(id: string, nowMs: number, count = 1): void {
    const since = nowMs - this.windowMs;
    const list = (this.calls.get(id) ?? []).filter((t) => t > since);
    if (list.length + count > this.limit) {
      this.calls.set(id, list);
      // When enough of the counted calls have left the window (never, for more than the limit at once).
      const freeing = list[list.length + count - this.limit - 1];
      const retryAfterSeconds = Math.max(1, Math.ceil(((freeing ?? nowMs) + this.windowMs - nowMs) / 1000));
      throw new AppError('rate_limited', 429, TOO_MANY_CALLS, { details: { retryAfterSeconds } });
    }
    for (let i = 0; i < count; i++) list.push(nowMs);
    this.calls.set(id, list);
    if (++this.sweeps % 1000 === 0) this.sweep(since);
  }

  /** Forget principals with no call in the window, so the map does not grow without bound. */
  private sweep(since: number): void {
    for (const [id, list] of this.calls) if (list[list.length - 1] <= since) this.calls.delete(id);
  }
}
