import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { createRenderer } from '../src/articles/renderer.js';
import { renderBody } from '../src/lib/markdown.js';
import type { BenchOptions, BenchResult } from './types.js';

// Markdown rendering: a long real article (pino's API reference, 52 KB, tables, code, lists)
// rendered in one pass, in a render worker beside the same render on the main thread (the
// worker's round trip is the difference); then many ordinary articles through the pool, one
// worker beside one per core (a publish of many renders them so).

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function row(name: string, times: number[], elapsedMs: number, baseline: { perSec: number }): BenchResult {
  const sorted = [...times].sort((a, b) => a - b);
  const perSec = (times.length / elapsedMs) * 1000;
  return { name, reqPerSec: perSec, p50Ms: pct(sorted, 50), p99Ms: pct(sorted, 99), baselineReqPerSec: baseline.perSec, ratio: perSec / baseline.perSec };
}

async function timed(n: number, one: () => Promise<unknown> | unknown): Promise<{ times: number[]; elapsed: number }> {
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await one();
    times.push(performance.now() - t);
  }
  return { times, elapsed: performance.now() - start };
}

export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const long = readFileSync(createRequire(import.meta.url).resolve('pino/docs/api.md'), 'utf8');
  const rounds = opts.quick ? 10 : 40;
  const one = createRenderer({ timeout: 30_000, workers: 1, previewCacheBytes: 0 });
  const cores = availableParallelism();
  const all = createRenderer({ timeout: 30_000, workers: cores, previewCacheBytes: 0 });
  try {
    for (let i = 0; i < 3; i++) {
      renderBody(long);
      await one.body(long, 'warm-up');
    }
    const inline = await timed(rounds, () => renderBody(long));
    const inlineRate = { perSec: (rounds / inline.elapsed) * 1000 };
    const worker = await timed(rounds, () => one.body(long, 'pino-api'));
    const results = [
      row(`render: long real article (${(long.length / 1024).toFixed(0)} KB) on the main thread`, inline.times, inline.elapsed, inlineRate),
      row('render: the same in a render worker (vs main thread)', worker.times, worker.elapsed, inlineRate),
    ];
    // Ordinary articles (~8 KB: the long one's first sections), as an import publishes them.
    const article = long.slice(0, 8_000);
    const count = opts.quick ? 200 : 1_000;
    const batch = async (r: typeof one) => {
      await Promise.all(Array.from({ length: cores * 2 }, () => r.body(article, 'warm-up')));
      const start = performance.now();
      const times: number[] = [];
      await Promise.all(Array.from({ length: count }, async () => {
        const t = performance.now();
        await r.body(article, 'article');
        times.push(performance.now() - t);
      }));
      return { times, elapsed: performance.now() - start };
    };
    const single = await batch(one);
    const singleRate = { perSec: (count / single.elapsed) * 1000 };
    const pooled = await batch(all);
    results.push(row(`render: ${count} articles of 8 KB, 1 worker`, single.times, single.elapsed, singleRate));
    results.push(row(`render: ${count} articles of 8 KB, ${cores} workers (vs 1)`, pooled.times, pooled.elapsed, singleRate));
    return results;
  } finally {
    await Promise.all([one.close(), all.close()]);
  }
}
