import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { createLogger } from '../src/lib/log.js';
import { firstLine, load } from './content.js';
import { scratchDatabase } from './scratch-db.js';
import { seedPublished } from './seed.js';
import type { BenchOptions, BenchResult } from './types.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(HERE, '../../bin/svc.js');
const log = (s: string) => process.stderr.write(`[bench limits] ${s}\n`);
const PG_URL = process.env.SVC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.SVC_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The cost of the shared limiter on the cached content path: one daemon on one PostgreSQL
 * database, GET /articles with one blog key (the hot-key worst case), the limit counted in memory
 * vs in PostgreSQL vs in Redis (limits.store), runs alternated, each store's best run compared with
 * memory's. Skipped when PostgreSQL is unreachable; the Redis line when Redis is.
 */
export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const db = await scratchDatabase(PG_URL, 'svc_bench', log).catch(() => undefined);
  if (!db) {
    log(`PostgreSQL unreachable at ${PG_URL}: skipped`);
    return [];
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-limits-'));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dir, SVC_DATABASE_URL: db.url, SVC_LOG_LEVEL: 'warn', SVC_CONTENT_RATE_LIMIT_PER_MINUTE: '1000000000' };
  try {
    const app = await createApp({ config: loadConfig({ env, cwd: dir }), log: createLogger('warn') });
    const seeded = await seedPublished(app, 'bench-limits.example', 1_000, 300);
    await app.close();
    const stores: Array<'memory' | 'postgres' | 'redis'> = ['memory', 'postgres'];
    if (await redisUp()) stores.push('redis');
    else log(`Redis unreachable at ${REDIS_URL}: no Redis line`);
    const best: Record<string, { rps: number; p50: number; p99: number }> = {};
    for (let round = 0; round < (opts.quick ? 3 : 5); round++) {
      for (const store of stores) {
        const r = await measure({ ...env, SVC_LIMITS_STORE: store, ...(store === 'redis' ? { SVC_REDIS_URL: REDIS_URL, SVC_REDIS_KEY_PREFIX: `svc-bench-${Date.now()}:` } : {}) }, dir, seeded.key, opts.quick ? 3 : 8);
        log(`round ${round + 1}, ${store}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99.toFixed(1)} ms`);
        if (!best[store] || r.rps > best[store].rps) best[store] = r;
      }
    }
    return stores.map((store) => ({
      name: `GET /articles cached, limit in ${store} (vs memory)`,
      reqPerSec: best[store].rps,
      p50Ms: best[store].p50,
      p99Ms: best[store].p99,
      baselineReqPerSec: best.memory.rps,
      ratio: best[store].rps / best.memory.rps,
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

async function measure(env: Record<string, string>, cwd: string, key: string, seconds: number) {
  const daemon = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = `http://127.0.0.1:${await firstLine(daemon, /listening on http:\/\/[\d.]+:(\d+)/)}/api/v1/content/articles`;
    const headers = { authorization: `Bearer ${key}` };
    await load(url, headers, 1); // warm-up: cache filled, first leases taken
    return await load(url, headers, seconds);
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
  }
}

async function redisUp(): Promise<boolean> {
  const r = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}
