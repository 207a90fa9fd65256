/**
 * A keyed read every caller gets fresh, shared by the callers of one event-loop turn: their keys
 * are read together by one read that starts at the end of the turn (setImmediate), after the last
 * of them asked, so it sees every change committed before any of them asked. A caller arriving
 * once that read has started gets the next one. Reads of successive turns may overlap (the pool
 * bounds them), so a caller waits for one read, never for a read in flight plus its own. A key the
 * read did not find is absent from the map.
 */
export class FreshRead<K, V> {
  private keys: Set<K> | null = null;
  private pending: Promise<Map<K, V>> | null = null;

  constructor(private readonly read: (keys: K[]) => Promise<Map<K, V>>) {}

  get(key: K): Promise<Map<K, V>> {
    if (!this.keys) {
      const keys = (this.keys = new Set());
      this.pending = new Promise((resolve) =>
        setImmediate(() => {
          this.keys = null;
          resolve(this.read([...keys]));
        }),
      );
    }
    this.keys.add(key);
    return this.pending!;
  }
}

/**
 * `read()`, made once more if the first has not answered after `ms` (a connection that went
 * silent): whichever answers first answers. Both start after the caller asked, so either is fresh.
 */
export function retriedAfter<T>(read: () => Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => read().then(resolve, reject), ms);
    read()
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
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
