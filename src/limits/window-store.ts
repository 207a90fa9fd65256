/**
 * Fixed-window counters, the one primitive every limit is built on. A key's window starts with
 * its first counted point and lasts windowMs; times are epoch ms of the daemon's clock (ctx.clock).
 * Each operation is one atomic step in the store (memory, PostgreSQL, Redis), so a refusal
 * never changes a count and two daemons never both take the last point.
 */
export interface Window {
  /** Whether the points were counted (always, for take without a limit). */
  taken: boolean;
  /** The key's count in its window after this step. */
  count: number;
  /** When the key's window ends. */
  resetAt: number;
}

export interface WindowStore {
  /**
   * Counts n points of key in its current window (a new one when it has none or it ended): with
   * a limit, only if count + n <= limit, otherwise nothing is written and taken is false.
   */
  take(key: string, n: number, windowMs: number, limit?: number): Promise<Window>;
  /** Gives n points back to the window ending at resetAt: only if it is still the key's window, never below zero. */
  giveBack(key: string, n: number, resetAt: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/** A memory store with what it holds, for tests and the curious. */
export interface MemoryWindowStore extends WindowStore {
  /** Windows held now (live, or ended since the last sweep), and sweeps made so far. */
  stats(): { windows: number; sweeps: number };
}

/** Past this many windows, ended ones are swept out... */
const SWEEP_ABOVE = 50_000;
/** ...at most once per second of the clock: a sweep visits every window, so one per take would make each take O(n). */
const SWEEP_EVERY_MS = 1_000;

/**
 * The counters of this process alone (SQLite's one daemon, and the insurance of a shared store).
 * Memory stays bounded: after a sweep only live windows remain, and between two sweeps at most
 * one second's worth of new keys is added.
 */
export function memoryWindowStore(now: () => number): MemoryWindowStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let lastSweep = -Infinity;
  let sweeps = 0;
  const sweep = (t: number) => {
    lastSweep = t;
    sweeps += 1;
    for (const [key, w] of windows) if (w.resetAt <= t) windows.delete(key);
  };
  return {
    async take(key, n, windowMs, limit) {
      const t = now();
      let w = windows.get(key);
      if (!w || w.resetAt <= t) w = { count: 0, resetAt: t + windowMs };
      if (limit !== undefined && w.count + n > limit) return { taken: false, count: w.count, resetAt: w.resetAt };
      if (windows.size > SWEEP_ABOVE && t - lastSweep >= SWEEP_EVERY_MS) sweep(t);
      w.count += n;
      windows.set(key, w);
      return { taken: true, count: w.count, resetAt: w.resetAt };
    },
    async giveBack(key, n, resetAt) {
      const w = windows.get(key);
      if (w && w.resetAt === resetAt && w.count >= n) w.count -= n;
    },
    async delete(key) {
      windows.delete(key);
    },
    async close() {},
    stats: () => ({ windows: windows.size, sweeps }),
  };
}

/**
 * A shared store that falls back to this process's memory while it fails (fail-open to
 * per-daemon limits, never a 500); `warn` is called on each failure (it rate-limits itself).
 */
export function withInsurance(store: WindowStore, insurance: WindowStore, warn: (err: unknown) => void): WindowStore {
  const insured =
    <A extends unknown[], R>(op: (s: WindowStore) => (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      op(store)(...args).catch((err) => {
        warn(err);
        return op(insurance)(...args);
      });
  return {
    take: insured((s) => s.take.bind(s)),
    giveBack: insured((s) => s.giveBack.bind(s)),
    delete: insured((s) => s.delete.bind(s)),
    close: () => store.close(),
  };
}
