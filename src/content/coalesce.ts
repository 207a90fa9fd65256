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

/**
 * FreshRead for keyed values read together: the keys asked for in one burst are read by one
 * read (one statement for every workspace of the burst), on the same terms as FreshRead. Every
 * caller of a burst gets the same map; a key the read did not find is absent from it.
 */
export class FreshBatch<K, V> {
  private keys: Set<K> | null = null;
  private pending: Promise<Map<K, V>> | null = null;

  constructor(private readonly read: (keys: K[]) => Promise<Map<K, V>>) {}

  get(key: K): Promise<Map<K, V>> {
    if (!this.pending) {
      const keys = new Set<K>();
      this.keys = keys;
      this.pending = new Promise<Map<K, V>>((resolve, reject) => {
        setImmediate(() => {
          this.pending = null;
          this.keys = null;
          this.read([...keys]).then(resolve, reject);
        });
      });
    }
    this.keys!.add(key);
    return this.pending;
  }
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
