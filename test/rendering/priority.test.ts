import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { createRenderer } from '../../src/articles/renderer.js';

/** The nice value of each thread of this process (Linux: field 19 of /proc/self/task/TID/stat). */
function threadNices(): number[] {
  const out: number[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
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
    const before = threadNices().filter((n) => n === base + 5).length;
    const renderer = createRenderer({ timeout: 30_000, workers: 2, previewCacheBytes: 0 });
    try {
      // Both workers are up once two bodies render at once (one task each).
      const bodies = await Promise.all([renderer.body('One *body*.', 'one'), renderer.body('Two *bodies*.', 'two')]);
      expect(bodies.map((b) => b.html)).toEqual(['<p>One <em>body</em>.</p>', '<p>Two <em>bodies</em>.</p>']);
      expect(renderer.stats().started).toBe(2);
      expect(threadNices().filter((n) => n === base + 5).length - before).toBe(2);
      // The thread that answers requests keeps its own priority.
      expect(getPriority(0)).toBe(base);
    } finally {
      await renderer.close();
    }
  });
});
