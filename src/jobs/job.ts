/** A background job of the daemon, started by jobs/index.ts and stopped by `svc serve`. */
export interface Job {
  /**
   * Stop taking new work and wait for the work in progress. When `deadline` aborts first, the
   * work still in progress is given up: its leases are released so another daemon, or the next
   * start, takes it at once. Resolves true when everything in progress finished, false when
   * something was given up.
   */
  stop(deadline?: AbortSignal): Promise<boolean>;
}

/**
 * A job that runs `round` `firstMs` after the start and then `nextMs()` after each round ends
 * (rounds never overlap); stopping waits for the round in progress. `round` handles its errors.
 */
export function repeating(firstMs: number, nextMs: () => number, round: () => Promise<unknown>): Job {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    running = round().finally(() => {
      if (!stopped) timer = setTimeout(tick, nextMs());
    });
  };
  let timer = setTimeout(tick, firstMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      return true;
    },
  };
}
