import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { buildResponse } from '../src/content/responses.js';
import { createArticle } from '../src/publishing/create.js';
import { publishArticle } from '../src/publishing/publish.js';
import { getWorkspace } from '../src/workspaces/service.js';
import { createLogger } from '../src/lib/log.js';
import { type Seeded, seedPublished } from './seed.js';
import type { BenchOptions, BenchResult } from './types.js';

const log = (s: string) => process.stderr.write(`[bench search] ${s}\n`);

/**
 * Search (GET /articles?q=), uncached, at 1,000 vs 100,000 published articles (10,000 with
 * --quick), on the database of SVC_BENCH_DATABASE_URL or a SQLite file. A word in one title, a
 * Japanese word in five articles, with a category filter, and a word in every article (whose cost
 * grows with the number of matches: every match is counted and ranked).
 */
export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-search-'));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'warn' };
  if (process.env.SVC_BENCH_SEARCH_DATABASE_URL) env.SVC_DATABASE_URL = process.env.SVC_BENCH_SEARCH_DATABASE_URL;
  try {
    const app = await createApp({ config: loadConfig({ env, cwd: dir }), log: createLogger('warn') });
    try {
      const small = await seed(app, 'search-1k.example', 1_000);
      const t = Date.now();
      const largeCount = opts.quick ? 10_000 : 100_000;
      const large = await seed(app, `search-${largeCount / 1000}k.example`, largeCount);
      log(`seeded ${largeCount} articles in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      const cases = [
        { name: 'one match in a title', q: '999' },
        { name: 'Japanese word, 5 matches', q: '喫茶店' },
        { name: 'Japanese word, category filter', q: '喫茶店', category: 'guides' },
        { name: 'word in every article', q: 'garden', iterations: 20 },
      ];
      const results: BenchResult[] = [];
      for (const c of cases) {
        const its = c.iterations ?? (opts.quick ? 100 : 300);
        const route = (s: Seeded) => () => buildResponse(app.db, s.ws.id, { kind: 'page', page: 0, limit: 10, q: c.q, category: c.category }, 0);
        const a = await time(route(small), its);
        const b = await time(route(large), its);
        const label = `${largeCount / 1000}k`;
        results.push({ name: `search ${c.name} (${label} vs 1k)`, reqPerSec: b.rps, p50Ms: b.p50, p99Ms: b.p99, baselineReqPerSec: a.rps, ratio: b.rps / a.rps });
        log(`${c.name}: 1k p50 ${a.p50.toFixed(3)} ms, ${label} p50 ${b.p50.toFixed(3)} ms`);
      }
      return results;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench corpus plus five Japanese articles published the ordinary way. */
async function seed(app: Awaited<ReturnType<typeof createApp>>, name: string, count: number): Promise<Seeded> {
  const seeded = await seedPublished(app, name, count, 150);
  for (let i = 0; i < 5; i++) {
    const ws = await getWorkspace(app, seeded.ws.id);
    const { article } = await createArticle(app, ws, { title: `京都の喫茶店 ${i}`, contentType: i % 2 ? 'GUIDE' : 'BLOG_POST', bodyMarkdown: '## 老舗\n\n古い喫茶店で珈琲を飲みます。' });
    await publishArticle(app, ws, article.id);
  }
  return seeded;
}

export async function time(fn: () => Promise<unknown>, iterations: number): Promise<{ rps: number; p50: number; p99: number }> {
  for (let i = 0; i < Math.min(10, iterations); i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((x, y) => x - y);
  const mean = ms.reduce((s, x) => s + x, 0) / ms.length;
  return { rps: 1000 / mean, p50: ms[Math.floor(ms.length * 0.5)], p99: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))] };
}
