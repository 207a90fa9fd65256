export interface Gather {
  /** How many more items are on their way (attempts sent and not yet answered). */
  coming(): number;
  /** A batch this large starts at once. */
  size: number;
  /** The longest a batch waits for items on their way, from when it could have started. */
  waitMs: number;
}

/**
 * `add(item)` resolves once `flush` handled a batch holding it; with `gather`, a smaller batch waits for items on their way
 * (PostgreSQL: 93 settles per 1,000 deliveries, not 277). `flush` reports its own errors: a throw reaches that batch's callers.
 */
export function groupCommit<T>(flush: (items: T[]) => Promise<void>, gather?: Gather): (item: T) => Promise<void> {
  let queue: Array<{ item: T; done: () => void; fail: (err: unknown) => void }> = [];
  let running = false;
  /** Ends the current wait for more items, when one is under way. */
  let gathered: (() => void) | null = null;
  const full = () => !gather || queue.length >= gather.size || gather.coming() === 0;
  const waitForMore = (waitMs: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => gathered?.(), waitMs);
      gathered = () => {
        clearTimeout(timer);
        gathered = null;
        resolve();
      };
    });
  const drain = async () => {
    while (queue.length > 0) {
      if (gather && !full()) await waitForMore(gather.waitMs);
      const batch = queue;
      queue = [];
      try {
        await flush(batch.map((b) => b.item));
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.fail(err);
      }
    }
    running = false;
  };
  return (item) =>
    new Promise<void>((done, fail) => {
      queue.push({ item, done, fail });
      if (gathered && full()) gathered();
      if (running) return;
      running = true;
      setImmediate(() => void drain());
    });
}
