/**
 * A read that every caller gets fresh, shared by bursts: callers of one event-loop turn share
 * one read that starts after the last of them arrived (at setImmediate), so it sees every change
 * committed before any of them asked. A caller arriving once that read has started gets the next
 * one. Reads of successive turns may overlap (the pool bounds them), so a caller waits about one
 * read, not a read in flight plus its own.
 */
export class FreshRead<T> {
  private pending: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.pending) {
      this.pending = new Promise<T>((resolve, reject) => {
        setImmediate(() => {
          this.pending = null;
          this.read().then(resolve, reject);
        });
      });
    }
    return this.pending;
  }
}

interface Burst<K, V> {
  keys: Set<K>;
  /** performance.now() when its first caller asked. */
  since: number;
  promise: Promise<Map<K, V>>;
  resolve(values: Map<K, V>): void;
  reject(err: unknown): void;
}

/**
 * FreshRead for keyed values read together, one read at a time: the keys asked for in one burst
 * are read by one read (one statement for every workspace of the burst) that starts after the
 * last of them arrived, so it sees every change committed before any of them asked. Callers
 * arriving while a read runs form the next burst, whose read starts once that one ended: a
 * caller waits for at most the read in flight and its own, and a busy daemon reads once per
 * round trip instead of once per event-loop turn (docs/performance.md). `read` gets how long the
 * burst has waited already, so a deadline can count from the first caller's arrival. Every
 * caller of a burst gets the same map; a key the read did not find is absent from it.
 */
export class FreshBatch<K, V> {
  private next: Burst<K, V> | null = null;
  private reading = false;

  constructor(private readonly read: (keys: K[], waitedMs: number) => Promise<Map<K, V>>) {}

  get(key: K): Promise<Map<K, V>> {
    if (!this.next) {
      const burst = { keys: new Set<K>(), since: performance.now() } as Burst<K, V>;
      burst.promise = new Promise<Map<K, V>>((resolve, reject) => {
        burst.resolve = resolve;
        burst.reject = reject;
      });
      this.next = burst;
      if (!this.reading) setImmediate(this.start);
    }
    this.next.keys.add(key);
    return this.next.promise;
  }

  private readonly start = (): void => {
    const burst = this.next;
    if (!burst || this.reading) return;
    this.next = null;
    this.reading = true;
    // A read that throws at once still ends, and lets the next burst start.
    new Promise<Map<K, V>>((resolve) => resolve(this.read([...burst.keys], performance.now() - burst.since)))
      .then(burst.resolve, burst.reject)
      .finally(() => {
        this.reading = false;
        if (this.next) setImmediate(this.start);
      });
  };
}

/** Concurrent callers for the same key share one computation (cache fills). */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  run(key: string, fn: () => Promise<T>): Promise<T> {
    const existing = this.inFlight.get(key);
    if (existing) return existing;
    const p = fn().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, p);
    return p;
  }
}
