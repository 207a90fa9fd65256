/**
 * Group commit: `add(item)` resolves once `flush` has handled a batch holding it. A batch starts
 * when none is running, at the end of the event-loop turn (so the answers read in one turn make
 * one batch); items added while one runs make up the next. So a lone item waits for nothing but
 * the current turn, and under load one commit serves every attempt that ended during the last.
 * `flush` must not throw (it reports its own errors); if it does, that batch's callers see it.
 */
export function groupCommit<T>(flush: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let queue: Array<{ item: T; done: () => void; fail: (err: unknown) => void }> = [];
  let running = false;
  const drain = async () => {
    while (queue.length > 0) {
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
      if (running) return;
      running = true;
      setImmediate(() => void drain());
    });
}
