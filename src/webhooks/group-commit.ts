export interface Gather {
  /** How many more items are on their way (attempts sent and not yet answered). */
  coming(): number;
  /** A batch this large starts at once. */
  size: number;
  /** The longest a batch waits for items on their way, from when it could have started. */
  waitMs: number;
}

/**
 * Group commit: `add(item)` resolves once `flush` has handled a batch holding it. A batch starts
 * when none is running, at the end of the event-loop turn (so the answers read in one turn make
 * one batch); items added while one runs make up the next. With `gather`, a batch smaller than
 * `gather.size` also waits, at most `gather.waitMs`, while more items are on their way: under a
 * steady stream one commit serves several rounds of answers instead of each round paying its own
 * (the PostgreSQL drain: 93 settles per 1,000 deliveries instead of 277, docs/performance.md).
 * A lone item (nothing on its way) waits for nothing but the current turn.
 * `flush` must not throw (it reports its own errors); if it does, that batch's callers see it.
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
