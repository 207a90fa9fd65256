import { AppError } from '../errors.js';

/**
 * At most `perKey` searches per key and `total` in the daemon, so searches never hold every
 * database connection. One with no slot waits up to `waitMs` in arrival order, then gets 429; so
 * does one arriving when its key already has as many waiting as may run in a wait.
 */
export class SearchSlots {
  private running = 0;
  private readonly runningByKey = new Map<string, number>();
  private readonly queue: Array<{ key: string; start: () => void }> = [];

  constructor(
    private readonly total: number,
    private readonly perKey: number,
    private readonly waitMs: number,
  ) {}

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const waiting = this.queue.filter((w) => w.key === key).length;
    if (waiting === 0 && this.fits(key)) this.take(key);
    else {
      if (waiting >= this.perKey * 4) throw this.refusal();
      // The slot is taken when release() starts the waiter, so no newcomer can take it meanwhile.
      await new Promise<void>((resolve, reject) => {
        const entry = {
          key,
          start: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          this.queue.splice(this.queue.indexOf(entry), 1);
          reject(this.refusal());
        }, this.waitMs);
        this.queue.push(entry);
      });
    }
    try {
      return await work();
    } finally {
      this.release(key);
    }
  }

  private release(key: string): void {
    this.running--;
    const left = this.runningByKey.get(key)! - 1;
    if (left === 0) this.runningByKey.delete(key);
    else this.runningByKey.set(key, left);
    // The first waiter whose key has room (another key's search may go before a key at its limit).
    const next = this.queue.findIndex((w) => this.fits(w.key));
    if (next === -1) return;
    const [waiter] = this.queue.splice(next, 1);
    this.take(waiter.key);
    waiter.start();
  }

  private fits(key: string): boolean {
    return this.running < this.total && (this.runningByKey.get(key) ?? 0) < this.perKey;
  }

  private take(key: string): void {
    this.running++;
    this.runningByKey.set(key, (this.runningByKey.get(key) ?? 0) + 1);
  }

  private refusal(): AppError {
    const s = Math.max(1, Math.ceil(this.waitMs / 1000));
    return new AppError('rate_limited', 429, `Too many searches at once with this key: at most ${this.perKey} run at a time. Retry in ${s} s.`, { details: { retryAfterSeconds: s } });
  }
}
