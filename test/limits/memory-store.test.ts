import { describe, expect, it } from 'vitest';
import { memoryWindowStore } from '../../src/limits/window-store.js';

// Past 50,000 windows the memory store swept every window on every take: O(n) per request while
// many distinct addresses were live (a sweep of live windows frees nothing). It sweeps at most
// once per second of the daemon's clock now, and still drops ended windows.

describe('the memory window store', () => {
  it('sweeps at most once per second of its clock, and still lets ended windows go', async () => {
    let t = 1_000_000;
    const store = memoryWindowStore(() => t);
    for (let i = 0; i <= 50_000; i++) await store.take(`address-${i}`, 1, 60_000, 10);
    expect(store.stats()).toEqual({ windows: 50_001, sweeps: 0 });

    // A thousand new addresses within one second: one sweep (which frees nothing: all are live), not a thousand.
    for (let i = 0; i < 1_000; i++) {
      if (i === 500) t += 999;
      await store.take(`burst-${i}`, 1, 60_000, 10);
    }
    expect(store.stats()).toEqual({ windows: 51_001, sweeps: 1 });

    // The next second on the clock allows the next sweep.
    t += 1;
    await store.take('one-more', 1, 60_000, 10);
    expect(store.stats()).toEqual({ windows: 51_002, sweeps: 2 });

    // Once their minute is over, the windows go at the next sweep: memory does not grow without bound.
    t += 60_000;
    await store.take('after-the-minute', 1, 60_000, 10);
    expect(store.stats()).toEqual({ windows: 1, sweeps: 3 });
  });

  it('counts as before across a sweep: live windows keep their counts, refusals write nothing', async () => {
    let t = 0;
    const store = memoryWindowStore(() => t);
    expect(await store.take('kept', 3, 120_000, 3)).toEqual({ taken: true, count: 3, resetAt: 120_000 });
    for (let i = 0; i < 50_000; i++) await store.take(`short-${i}`, 1, 1_000, 1);
    expect(store.stats()).toEqual({ windows: 50_001, sweeps: 0 });
    t = 5_000;
    expect(await store.take('trigger', 1, 1_000)).toMatchObject({ taken: true, count: 1 });
    expect(store.stats()).toEqual({ windows: 2, sweeps: 1 });
    expect(await store.take('kept', 1, 120_000, 3)).toEqual({ taken: false, count: 3, resetAt: 120_000 });
  });
});
