import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import knex, { type Knex } from 'knex';
import { BIN, firstLine } from './content.js';
import { writeArchive } from './seed.js';
import { scratchDatabase } from './scratch-db.js';
import type { BenchOptions, BenchResult } from './types.js';

const run = promisify(execFile);
const log = (s: string) => process.stderr.write(`[bench archive] ${s}\n`);

/**
 * The large archive (issue "a large archive moves in within a minute"): 50,000 generated ~400-word
 * posts (5,000 with --quick) imported and published by one `svc articles import --publish`, then
 * the figures of a daemon over them: data on disk per article, start to ready, an article by slug,
 * a random page of the first 5,000 and a search (each request a new key, so none is answered from
 * the cache), and the daemon's RSS after those reads. Beside the import: a bare insert loop of the
 * same rows into the same tables of an empty migrated database (multi-row inserts in one
 * transaction, no rendering, no svc), the physical limit. SQLite, then PostgreSQL when
 * SVC_BENCH_DATABASE_URL (or SVC_TEST_DATABASE_URL) names a server.
 */
export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const count = opts.quick ? 5_000 : 50_000;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-archive-'));
  try {
    const t = performance.now();
    const root = writeArchive(dir, count);
    log(`wrote ${count} posts in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const results = await engine('sqlite', dir, root, count, {});
    const server = process.env.SVC_BENCH_DATABASE_URL ?? process.env.SVC_TEST_DATABASE_URL;
    if (!server) {
      log('PostgreSQL skipped: set SVC_BENCH_DATABASE_URL');
      return results;
    }
    const svcDb = await scratchDatabase(server, 'svc_bench_archive', log);
    const bareDb = await scratchDatabase(server, 'svc_bench_bare', log);
    try {
      results.push(...(await engine('postgres', dir, root, count, { svc: svcDb.url, bare: bareDb.url })));
    } finally {
      await svcDb.drop();
      await bareDb.drop();
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function engine(name: 'sqlite' | 'postgres', dir: string, root: string, count: number, urls: { svc?: string; bare?: string }): Promise<BenchResult[]> {
  const label = `archive ${name} ${count / 1000}k`;
  const dataDir = mkdtempSync(path.join(dir, `${name}-`));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_CONFIG: 'none', SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'warn', SVC_CONTENT_RATE_LIMIT_PER_MINUTE: '1000000000' };
  if (urls.svc) env.SVC_DATABASE_URL = urls.svc;
  const svc = (args: string[]) => run(process.execPath, [BIN, ...args], { env, cwd: dataDir, maxBuffer: 1 << 30 });
  await svc(['workspaces', 'add', '--name', 'archive.example', '--website', 'https://archive.example']);
  const key = /\b(svc_blog_\S+|bk_\S+)/.exec((await svc(['blog-key', 'generate', '--workspace', 'archive.example'])).stdout)?.[1];
  if (!key) throw new Error('no blog key printed');
  const db = connect(urls.svc ?? path.join(dataDir, 'svc.sqlite'));
  const before = await rowCounts(db);
  const t = performance.now();
  await svc(['articles', 'import', root, '--publish', '--workspace', 'archive.example', '--json']);
  const importMs = performance.now() - t;
  const grown = [...(await rowCounts(db))].filter(([table, n]) => n > (before.get(table) ?? 0)).map(([table]) => table);
  const bytes = await dataBytes(db, dataDir);
  await db.destroy();
  log(`${name}: import + publish ${(importMs / 1000).toFixed(1)} s (${(importMs / count).toFixed(2)} ms an article), ${(bytes / count / 1024).toFixed(1)} KB an article on disk`);
  const bareMs = await bareInsertLoop(name, dataDir, urls, grown, env);
  log(`${name}: bare insert loop of the same rows (${grown.join(', ')}): ${(bareMs / 1000).toFixed(1)} s (${(bareMs / count).toFixed(2)} ms an article)`);
  const reads = await daemonReads(env, dataDir, key, count);
  const perSec = (ms: number) => (count / ms) * 1000;
  return [
    { name: `${label}: import + publish, articles/s (p50 = ms an article) vs bare insert loop`, reqPerSec: perSec(importMs), p50Ms: importMs / count, p99Ms: importMs / count, baselineReqPerSec: perSec(bareMs), ratio: bareMs / importMs },
    { name: `${label}: data on disk, KB an article (in p50)`, reqPerSec: 0, p50Ms: bytes / count / 1024, p99Ms: bytes / count / 1024, baselineReqPerSec: 0, ratio: 0 },
    { name: `${label}: start to ready, ms (in p50)`, reqPerSec: 0, p50Ms: reads.startMs, p99Ms: reads.startMs, baselineReqPerSec: 0, ratio: 0 },
    ...reads.lines.map((l) => ({ name: `${label}: ${l.name}`, reqPerSec: 1000 / l.mean, p50Ms: l.p50, p99Ms: l.p99, baselineReqPerSec: 0, ratio: 0 })),
    { name: `${label}: daemon RSS after the reads, MB (in p50)`, reqPerSec: 0, p50Ms: reads.rssMb, p99Ms: reads.rssMb, baselineReqPerSec: 0, ratio: 0 },
  ];
}

function connect(target: string): Knex {
  return target.startsWith('postgres')
    ? knex({ client: 'pg', connection: target, pool: { min: 0, max: 1 } })
    : knex({ client: 'sqlite3', connection: { filename: target }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
}

const isPg = (db: Knex) => db.client.config.client === 'pg';

async function tables(db: Knex): Promise<string[]> {
  if (isPg(db)) return (await db.raw("select tablename as name from pg_tables where schemaname = 'public' order by 1")).rows.map((r: { name: string }) => r.name).filter((t: string) => !t.startsWith('knex_'));
  const rows: Array<{ name: string; sql: string }> = await db.raw("select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'knex_%'");
  // An FTS5 table's own tables (x_data, x_idx, ...) are written through it.
  const virtual = rows.filter((r) => /create virtual table/i.test(r.sql ?? '')).map((r) => r.name);
  return rows.map((r) => r.name).filter((n) => !virtual.some((v) => n.startsWith(`${v}_`)));
}

async function rowCounts(db: Knex): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of await tables(db)) out.set(t, Number((await db(t).count({ n: '*' }).first())?.n ?? 0));
  return out;
}

/** Bytes the database takes: the SQLite file and its WAL after a checkpoint, or PostgreSQL's database size. */
async function dataBytes(db: Knex, dataDir: string): Promise<number> {
  if (isPg(db)) return Number((await db.raw('select pg_database_size(current_database()) as n')).rows[0].n);
  await db.raw('pragma wal_checkpoint(TRUNCATE)');
  const file = path.join(dataDir, 'svc.sqlite');
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  return size(file) + size(`${file}-wal`);
}

/**
 * The rows the import wrote, inserted again into an empty migrated database of the same engine in
 * one transaction, as multi-row inserts sized to the engine's bound on parameters. Only the time
 * of the inserts and the commit is counted, not reading the rows back.
 */
async function bareInsertLoop(name: string, dataDir: string, urls: { svc?: string; bare?: string }, grown: string[], env: Record<string, string>): Promise<number> {
  const bareDir = mkdtempSync(path.join(dataDir, 'bare-'));
  await run(process.execPath, [BIN, 'migrate'], { env: { ...env, SVC_DATA_DIR: bareDir, ...(urls.bare ? { SVC_DATABASE_URL: urls.bare } : {}) }, cwd: bareDir });
  const from = connect(urls.svc ?? path.join(dataDir, 'svc.sqlite'));
  const to = connect(urls.bare ?? path.join(bareDir, 'svc.sqlite'));
  let ms = 0;
  try {
    const timed = async (step: () => Promise<unknown>) => {
      const t = performance.now();
      await step();
      ms += performance.now() - t;
    };
    const trx = await to.transaction();
    try {
      // The copy keeps the rows' references without checking them (the same rows, already checked).
      if (isPg(to)) await trx.raw('set local session_replication_role = replica');
      for (const table of await tables(from)) {
        // The physical row order: deterministic, so paging by offset reads each row once (a non-unique first column would not).
        const pk = isPg(from) ? 'ctid' : 'rowid';
        const columns = (await from(table).columnInfo()) as Record<string, unknown>;
        const names = Object.keys(columns);
        const per = Math.max(1, Math.floor(30_000 / (names.length + 1)));
        for (let offset = 0; ; offset += per) {
          const rows: Array<Record<string, unknown>> = await from(table).select(names).orderBy(pk).offset(offset).limit(per);
          if (rows.length === 0) break;
          const step = () => (isPg(to) ? trx(table).insert(rows) : trx.raw(`insert into ?? (${names.map(() => '??').join(', ')}) values ${rows.map(() => `(${names.map(() => '?').join(', ')})`).join(', ')}`, [table, ...names, ...rows.flatMap((r) => names.map((n) => r[n] ?? null))] as never));
          if (grown.includes(table)) await timed(step);
          else await step();
        }
      }
      await timed(() => trx.commit());
    } catch (err) {
      // An open transaction would keep destroy() below waiting for its connection forever.
      await trx.rollback().catch(() => undefined);
      throw err;
    }
  } finally {
    await from.destroy();
    await to.destroy();
  }
  void name;
  return ms;
}

interface ReadLine {
  name: string;
  p50: number;
  p99: number;
  mean: number;
}

/** Start the daemon (time to its listening line), read over HTTP, each request a key of its own, then its RSS. */
async function daemonReads(env: Record<string, string>, cwd: string, key: string, count: number): Promise<{ startMs: number; lines: ReadLine[]; rssMb: number }> {
  const t = performance.now();
  const daemon: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await firstLine(daemon, /listening on http:\/\/[\d.]+:(\d+)/);
    const startMs = performance.now() - t;
    const base = `http://127.0.0.1:${port}/api/v1/content`;
    const get = async (p: string) => {
      const s = performance.now();
      const res = await fetch(base + p, { headers: { authorization: `Bearer ${key}` } });
      if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      return performance.now() - s;
    };
    const n = 300;
    const pick = (i: number, of: number) => (i * 7_919) % of;
    const words = 'garden soil compost pruning water light seeds roots harvest season shade mulch tomato pepper basil frost clay worm'.split(' ');
    const cases: Array<[string, (i: number) => string]> = [
      ['uncached article by slug, ms', (i) => `/articles/post-${pick(i + 1, count)}`],
      [`uncached random page of ${Math.min(5_000, count / 10)} (limit=10), ms`, (i) => `/articles?limit=10&page=${pick(i + 1, Math.min(5_000, count / 10))}`],
      ['search (two words, each pair once), ms', (i) => `/articles?q=${words[i % words.length]}+${words[Math.floor(i / words.length) % words.length]}`],
    ];
    for (let i = 0; i < 20; i++) await get(`/articles?limit=10&page=${count / 10 - 1 - i}`); // warm the daemon (JIT), keys not measured below
    const lines: ReadLine[] = [];
    for (const [name, path] of cases) {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) ms.push(await get(path(i)));
      ms.sort((a, b) => a - b);
      lines.push({ name, p50: ms[Math.floor(n / 2)], p99: ms[Math.floor(n * 0.99)], mean: ms.reduce((s, x) => s + x, 0) / n });
    }
    const status = await import('node:fs/promises').then((fs) => fs.readFile(`/proc/${daemon.pid}/status`, 'utf8'));
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    return { startMs, lines, rssMb };
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
  }
}
