import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createRenderer } from '../../src/articles/renderer.js';
import { poll } from '../helpers/poll.js';

/** The nice value of each thread of this process by its id (Linux: field 19 of /proc/self/task/TID/stat). */
function threadNices(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

// A bulk publish writes its transactions on the main thread while the workers render the next
// batches: at the same priority, four busy threads on two cores gave the transactions half the CPU.
describe.runIf(process.platform === 'linux')('render workers yield the CPU to the event loop', () => {
  it('each render worker runs five nice levels below the thread that started it', async () => {
    const base = getPriority(0);
    // By thread id: a render worker of an earlier file in this fork may still be ending, and would change a plain count.
    const before = threadNices();
    const renderer = createRenderer({ timeout: 30_000, workers: 2, previewCacheBytes: 0 });
    try {
      // Both workers are up once two bodies render at once (one task each).
      const bodies = await Promise.all([renderer.body('One *body*.', 'one'), renderer.body('Two *bodies*.', 'two')]);
      expect(bodies.map((b) => b.html)).toEqual(['<p>One <em>body</em>.</p>', '<p>Two <em>bodies</em>.</p>']);
      expect(renderer.stats().started).toBe(2);
      // One worker may have rendered both while the other still loaded its module (it lowers its priority as it loads).
      const lowered = () => Promise.resolve([...threadNices()].filter(([tid, nice]) => !before.has(tid) && nice === base + 5));
      expect(await poll(lowered, (list) => list.length >= 2)).toHaveLength(2);
      // The thread that answers requests keeps its own priority.
      expect(getPriority(0)).toBe(base);
    } finally {
      await renderer.close();
    }
  });
});

// The renders a caller waits for while holding a lock (a publish's transaction, a webhook event's
// lease) go ahead of those queued: shown by the order they finish in, on one worker.
describe('renders under a lock', () => {
  it('body() and markdown() with holdingLock run before the bodies queued ahead of them', async () => {
    const renderer = createRenderer({ timeout: 30_000, workers: 1, previewCacheBytes: 0 });
    try {
      await renderer.body('Warm *up*.', 'warm');
      const finished: string[] = [];
      const note = <T>(name: string, p: Promise<T>) => p.then((v) => (finished.push(name), v));
      // 64 bodies: four tasks of 16 on the one worker.
      const queued = note('queued', renderer.bodies(Array.from({ length: 64 }, (_, i) => ({ markdown: `Post ${i} with *some* words.`, label: `p${i}` }))));
      const locked = [note('body', renderer.body('Under a *lock*.', 'locked', { holdingLock: true })), note('markdown', renderer.markdown('Under a *lease*.', 'leased', { holdingLock: true }))];
      const [one, two] = await Promise.all(locked);
      expect([one.html, two.html]).toEqual(['<p>Under a <em>lock</em>.</p>', '<p>Under a <em>lease</em>.</p>']);
      expect((await queued).length).toBe(64);
      expect(finished).toEqual(['body', 'markdown', 'queued']);
    } finally {
      await renderer.close();
    }
  });
});
