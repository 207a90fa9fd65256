import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { isPostgres } from '../src/db/connect.js';
import { buildResponse } from '../src/content/responses.js';
import { createLogger } from '../src/lib/log.js';
import { scratchDatabase } from './scratch-db.js';
import { time } from './search.js';
import { seedPublished } from './seed.js';
import type { BenchOptions, BenchResult } from './types.js';

const log = (s: string) => process.stderr.write(`[bench storage] ${s}\n`);

/**
 * Storage: disk per article and uncached reads at 5,000 generated ~400-word articles (3-5
 * headings, 2-4 tags, a vocabulary of a few thousand words; 50,000 without --quick). Disk is the
 * SQLite file after VACUUM (PostgreSQL: the database's size after VACUUM) over the number
 * of articles; the reads are an uncached article by slug and an uncached random page of the
 * archive with limit=10, built from the database (buildResponse) as the content API does.
 * SVC_BENCH_STORAGE_DATABASE_URL (a PostgreSQL server) runs it on a scratch database there.
 */
export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const count = Number(process.env.SVC_BENCH_STORAGE_COUNT ?? (opts.quick ? 5_000 : 50_000));
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-storage-'));
  const server = process.env.SVC_BENCH_STORAGE_DATABASE_URL;
  const scratch = server ? await scratchDatabase(server, 'svc_bench_storage', log) : null;
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'warn' };
  if (scratch) env.SVC_DATABASE_URL = scratch.url;
  try {
    const app = await createApp({ config: loadConfig({ env, cwd: dir }), log: createLogger('warn') });
    try {
      const t = Date.now();
      const seeded = await seedPublished(app, 'storage.example', count, 400, articleBody);
      log(`seeded ${count} articles in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      const bytes = await diskBytes(app.db, app.config.database.filename);
      log(`disk ${(bytes / 1e6).toFixed(1)} MB, ${(bytes / count / 1024).toFixed(2)} KB an article`);
      const db = isPostgres(app.db) ? 'PostgreSQL' : 'SQLite';
      const its = opts.quick ? 300 : 1000;
      const pages = Math.floor(count / 10);
      const rand = seeded.slugs.map((_, i) => (i * 7919) % count);
      let n = 0;
      const bySlug = await time(() => buildResponse(app.db, seeded.ws.id, { kind: 'article', slug: seeded.slugs[rand[n++ % count]] }, 0), its);
      const page = await time(() => buildResponse(app.db, seeded.ws.id, { kind: 'page', page: rand[n++ % count] % pages, limit: 10 }, 0), its);
      const label = `${count / 1000}k, ${db}`;
      log(`article by slug p50 ${bySlug.p50.toFixed(3)} ms, random page of ${pages} p50 ${page.p50.toFixed(3)} ms`);
      return [
        // Disk: reqPerSec holds KB an article, the baseline the markdown's KB an article.
        { name: `storage KB an article (${label}; baseline: markdown)`, reqPerSec: bytes / count / 1024, p50Ms: 0, p99Ms: 0, baselineReqPerSec: seeded.markdownBytes / count / 1024, ratio: bytes / seeded.markdownBytes },
        { name: `uncached article by slug (${label})`, reqPerSec: bySlug.rps, p50Ms: bySlug.p50, p99Ms: bySlug.p99, baselineReqPerSec: bySlug.rps, ratio: 1 },
        { name: `uncached random page of ${pages} limit=10 (${label})`, reqPerSec: page.rps, p50Ms: page.p50, p99Ms: page.p99, baselineReqPerSec: page.rps, ratio: 1 },
      ];
    } finally {
      await app.close();
    }
  } finally {
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function diskBytes(db: Awaited<ReturnType<typeof createApp>>['db'], filename: string): Promise<number> {
  if (isPostgres(db)) {
    // Plain VACUUM: the seed only inserts, so there is nothing to compact (FULL outlasts the query timeout on a loaded machine).
    await db.raw('VACUUM');
    const { rows } = await db.raw('select pg_database_size(current_database()) as n');
    return Number(rows[0].n);
  }
  await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  await db.raw('VACUUM');
  return statSync(filename).size;
}

const VOCABULARY = Array.from({ length: 4000 }, (_, i) => word(i));

/** A pronounceable word per number (the same every run). */
function word(i: number): string {
  const c = 'bcdfghklmnprstvz';
  const v = 'aeiou';
  let s = '';
  for (let n = i + 20; n > 0; n = Math.floor(n / 80)) s += c[n % 16] + v[Math.floor(n / 16) % 5];
  return s;
}

/** A ~400-word article with 3-5 headings, its words drawn with a Zipf-like skew (seeded by `i`). */
export function articleBody(i: number): string {
  let seed = i * 2654435761 + 1;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = () => VOCABULARY[Math.floor(VOCABULARY.length * next() ** 3)];
  const headings = 3 + (i % 3);
  const parts = [`# Article ${i}`];
  for (let h = 0; h < headings; h++) {
    parts.push(`## ${pick()} ${pick()} ${pick()}`);
    const words = Math.round(400 / headings);
    parts.push(Array.from({ length: words }, (_, w) => (w % 12 === 11 ? `${pick()}.` : pick())).join(' '));
  }
  return parts.join('\n\n');
}
