import { AppError } from '../errors.js';

/**
 * At most `perKey` searches per key and `total` in the daemon, so searches never hold every
 * database connection. One with no slot waits up to `waitMs` in arrival order, then gets 429; so
 * does one arriving when its key already has as many waiting as may run in a wait.
 */
export class SearchSlots {
  private running = 0;
  private readonly byKey = new Map<string, { running: number; waiting: number }>();
  private readonly queue: Array<{ key: string; start: () => void }> = [];

  constructor(
    private readonly total: number,
    private readonly perKey: number,
    private readonly waitMs: number,
  ) {}

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const k = this.key(key);
    if (k.waiting === 0 && this.fits(k)) {
      this.running++;
      k.running++;
    } else {
      if (k.waiting >= this.perKey * 4) throw this.refusal();
      k.waiting++;
      // The slot is taken when release() starts the waiter, so no newcomer can take it meanwhile.
      await new Promise<void>((resolve, reject) => {
        const entry = {
          key,
          start: () => {
            clearTimeout(timer);
            k.waiting--;
            this.running++;
            k.running++;
            resolve();
          },
        };
        const timer = setTimeout(() => {
          this.queue.splice(this.queue.indexOf(entry), 1);
          k.waiting--;
          this.forget(key, k);
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
    const k = this.key(key);
    this.running--;
    k.running--;
    // The first waiter whose key has room (another key's search may go before a key at its limit).
    const next = this.queue.findIndex((w) => this.fits(this.key(w.key)));
    if (next !== -1) this.queue.splice(next, 1)[0].start();
    else this.forget(key, k);
  }

  private fits(k: { running: number }): boolean {
    return this.running < this.total && k.running < this.perKey;
  }

  private key(key: string): { running: number; waiting: number } {
    let k = this.byKey.get(key);
    if (!k) this.byKey.set(key, (k = { running: 0, waiting: 0 }));
    return k;
  }

  private forget(key: string, k: { running: number; waiting: number }): void {
    if (k.running === 0 && k.waiting === 0) this.byKey.delete(key);
  }

  private refusal(): AppError {
    const s = Math.max(1, Math.ceil(this.waitMs / 1000));
    return new AppError('rate_limited', 429, `Too many searches at once with this key: at most ${this.perKey} run at a time. Retry in ${s} s.`, { details: { retryAfterSeconds: s } });
  }
}
