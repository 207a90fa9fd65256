import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/load.js';
import { createLogger } from '../src/lib/log.js';
import { BIN, HERE, type Load, alternate, cpuText, firstLine, load, versus } from './content.js';
import { paced } from './paced.js';
import { scratchDatabase } from './scratch-db.js';
import { seedPublished } from './seed.js';
import type { BenchOptions, BenchResult } from './types.js';

const log = (s: string) => process.stderr.write(`[bench cluster] ${s}\n`);

/**
 * Scale-out on PostgreSQL: cached GETs on one daemon (against the bare server, as the SQLite
 * lines), then two daemons on the same database against one: the same 50 connections spread over
 * both at saturation, and the same offered rate per daemon below it, with the bare server in two
 * processes against one at that rate as the control.
 * Needs a PostgreSQL server: SVC_BENCH_DATABASE_URL, else SVC_TEST_DATABASE_URL; skipped without.
 */
export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const server = process.env.SVC_BENCH_DATABASE_URL ?? process.env.SVC_TEST_DATABASE_URL;
  if (!server) {
    log('skipped: set SVC_BENCH_DATABASE_URL (or SVC_TEST_DATABASE_URL) to a PostgreSQL server to measure one vs two daemons');
    return [];
  }
  const db = await scratchDatabase(server, 'svc_bench', log);
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-pg-'));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_DATA_DIR: dir, SVC_DATABASE_URL: db.url, SVC_LOG_LEVEL: 'warn', SVC_CONTENT_RATE_LIMIT_PER_MINUTE: '1000000000' };
  const children: ChildProcess[] = [];
  try {
    const app = await createApp({ config: loadConfig({ env, cwd: dir }), log: createLogger('warn') });
    const seeded = await seedPublished(app, 'bench-pg.example', 1_000, 300);
    await app.close();
    const start = async () => {
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      return { url: `http://127.0.0.1:${await firstLine(child, /listening on http:\/\/[\d.]+:(\d+)/)}`, pid: child.pid };
    };
    const first = await start();
    const one = first.url;
    const headers = { authorization: `Bearer ${seeded.key}` };
    const paths = { 'GET /articles': '/api/v1/content/articles', 'GET /articles/{slug}': `/api/v1/content/articles/${seeded.slugs[500]}` };
    const bytes: Record<string, { type: string; body: string }> = {};
    for (const p of Object.values(paths)) {
      const res = await fetch(one + p, { headers });
      if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      bytes[p] = { type: res.headers.get('content-type')!, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
    }
    const file = path.join(dir, 'bare-routes.json');
    writeFileSync(file, JSON.stringify(bytes));
    const bare = spawn(process.execPath, [path.join(HERE, 'bare-server.js'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(bare);
    const bareUrl = `http://127.0.0.1:${await firstLine(bare, /^(\d+)$/)}`;
    const seconds = opts.quick ? 2 : 5;
    const results: BenchResult[] = [];
    const oneDaemon: Record<string, number> = {};
    for (const p of Object.values(paths)) await load(one + p, headers, 1); // past the daemon's first seconds
    for (const [label, p] of Object.entries(paths)) {
      await load(one + p, headers, 1);
      await load(bareUrl + p, {}, 1);
      const [svc, base] = await alternate(() => load(one + p, headers, seconds, [first.pid]), () => load(bareUrl + p, {}, seconds, [bare.pid]));
      results.push(versus(`${label} (PostgreSQL, 1 daemon, cached)`, svc, base));
      oneDaemon[label] = svc.rps;
      log(`${label}: 1 daemon ${svc.rps.toFixed(0)} req/s, ${cpuText(svc)} vs bare ${base.rps.toFixed(0)} req/s, ${cpuText(base)}`);
    }
    // Two daemons against one. At saturation (50 connections over both) the daemons, PostgreSQL and
    // autocannon contend for this machine's cores, and a daemon at half the load amortises its
    // per-turn costs and freshness reads over half as many requests: that line measures the machine.
    // The promise (CPU per request flat in the number of daemons, so daemons on separate machines
    // add up) is measured at the same offered rate per daemon, below saturation, with the bare
    // server in one and two processes under the same load as the control.
    const second = await start();
    const two = second.url;
    const bare2 = spawn(process.execPath, [path.join(HERE, 'bare-server.js'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(bare2);
    const bareUrl2 = `http://127.0.0.1:${await firstLine(bare2, /^(\d+)$/)}`;
    for (const p of Object.values(paths)) {
      await load(two + p, headers, 1);
      await load(bareUrl2 + p, {}, 1);
    }
    for (const [label, p] of Object.entries(paths)) {
      await load([one + p, two + p], headers, 1);
      // Two daemons against one, alternated like the other lines (the one-daemon runs are new ones).
      const [svc, base] = await alternate(() => load([one + p, two + p], headers, seconds, [first.pid, second.pid]), () => load(one + p, headers, seconds, [first.pid]));
      results.push(versus(`${label} (PostgreSQL, 2 daemons vs 1, saturated)`, svc, base));
      log(`${label}: 2 daemons ${svc.rps.toFixed(0)} req/s, ${cpuText(svc)} vs 1 daemon ${base.rps.toFixed(0)} req/s, ${cpuText(base)}`);
      // A twelfth of what one daemon served flat out, per process: below saturation even with
      // PostgreSQL, the load generator and other work on the same cores, and a request costs more
      // CPU at a low rate (fewer requests share each freshness read and each turn) than flat out.
      // ratio 2.00: the offered rate was served.
      const rate = Math.max(200, Math.round(oneDaemon[label] / 12 / 100) * 100);
      const long = 2 * seconds; // CPU time comes in 10 ms ticks: enough requests for a steady figure
      const [svc2, svc1] = await alternate(
        () => paced([one + p, two + p], headers, long, 2 * rate, [first.pid, second.pid]),
        () => paced([one + p], headers, long, rate, [first.pid]),
      );
      const [bare2Run, bare1Run] = await alternate(
        () => paced([bareUrl + p, bareUrl2 + p], {}, long, 2 * rate, [bare.pid, bare2.pid]),
        () => paced([bareUrl + p], {}, long, rate, [bare.pid]),
      );
      // One daemon against the bare server at the same rate: the per-request cost below saturation.
      results.push(versus(`${label} (PostgreSQL, 1 daemon vs bare, ${rate} req/s both)`, svc1, bare1Run));
      results.push(versus(`${label} (PostgreSQL, 2 daemons vs 1, ${rate} req/s each)`, svc2, svc1));
      results.push(versus(`${label} (control: bare, 2 processes vs 1, ${rate} req/s each)`, bare2Run, bare1Run));
      const growth = (a: Load, b: Load) => (a.cpu && b.cpu ? (a.cpu / b.cpu).toFixed(2) : '?');
      log(`${label} at ${rate} req/s per process: CPU per request 2 vs 1 svc ${growth(svc2, svc1)}x (${cpuText(svc2)} vs ${cpuText(svc1)}), bare ${growth(bare2Run, bare1Run)}x (${cpuText(bare2Run)} vs ${cpuText(bare1Run)})`);
    }
    return results;
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  }
}

