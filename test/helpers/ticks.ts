import type { App } from '../../src/app.js';

export interface Tick {
  at: string;
  published: number;
}

/**
 * The next `n` scheduler ticks of `app` that start at or after `from` (clock time, default now):
 * whole ticks that looked for due articles after the moment the test cares about, so "nothing was
 * published" is proven by the scheduler having looked, not by a sleep. Fails after `ms`.
 */
export function schedulerTicks(app: App, n = 2, from = app.clock.now().toISOString(), ms = 15_000): Promise<Tick[]> {
  return new Promise((resolve, reject) => {
    const seen: Tick[] = [];
    const onTick = (t: Tick) => {
      if (t.at < from) return;
      seen.push(t);
      if (seen.length >= n) done(() => resolve(seen));
    };
    const timer = setTimeout(() => done(() => reject(new Error(`${seen.length} of ${n} scheduler ticks after ${from} within ${ms} ms`))), ms);
    const done = (then: () => void) => {
      clearTimeout(timer);
      app.events.off('scheduler.ticked', onTick);
      then();
    };
    app.events.on('scheduler.ticked', onTick);
  });
}

/** Every tick of `app` from now on, for a final assertion over all of them (e.g. each article published once in all). */
export function recordTicks(app: App): Tick[] {
  const all: Tick[] = [];
  app.events.on('scheduler.ticked', (t) => all.push(t));
  return all;
}

/**
 * The next `n` looks of `app`'s webhook worker for due events, each begun after this call (the
 * first one seen may have begun before, so it is not counted): "nothing more was sent" is proven
 * by the worker having looked, not by a sleep. Fails after `ms`.
 */
export function workerLooks(app: App, n = 2, ms = 15_000): Promise<Array<{ claimed: number }>> {
  return new Promise((resolve, reject) => {
    const seen: Array<{ claimed: number }> = [];
    const onLook = (look: { claimed: number }) => {
      seen.push(look);
      if (seen.length > n) done(() => resolve(seen.slice(1)));
    };
    const timer = setTimeout(() => done(() => reject(new Error(`${Math.max(0, seen.length - 1)} of ${n} webhook worker looks within ${ms} ms`))), ms);
    const done = (then: () => void) => {
      clearTimeout(timer);
      app.events.off('webhooks.looked', onLook);
      then();
    };
    app.events.on('webhooks.looked', onLook);
  });
}
