import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type App } from '../src/app.js';
import { createArticle } from '../src/publishing/create.js';
import { loadConfig } from '../src/config/load.js';
import { publishArticle } from '../src/publishing/publish.js';
import { createLogger } from '../src/lib/log.js';
import { setWebhook } from '../src/webhooks/service.js';
import { startWebhookWorker } from '../src/webhooks/worker.js';
import { createWorkspace } from '../src/workspaces/service.js';
import type { Workspace } from '../src/workspaces/types.js';
import type { BenchOptions, BenchResult } from './types.js';

const log = (s: string) => process.stderr.write(`[bench webhooks] ${s}\n`);
const BODY = `# Bench\n\n${'## Section\n\nSome words about gardens, soil and seeds. '.repeat(40)}`;

/**
 * Webhook bench on one machine (SQLite, default concurrency 4, a receiver answering 200 at once):
 * (1) outbox throughput: N queued events drained by the worker, against bare node:http POSTs of
 * the same bytes at the same concurrency; (2) publish-to-delivery latency: one publish at a time,
 * timed until the receiver has the request, against one bare POST round trip.
 */
export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const n = opts.quick ? 200 : 1000;
  const latencyRuns = opts.quick ? 30 : 100;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-wh-'));
  const receiver = await startReceiver();
  try {
    const config = loadConfig({ env: { SVC_DATA_DIR: dir, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' }, cwd: dir, overrides: { 'webhooks.pollInterval': 100 } });
    const app = await createApp({ config, log: createLogger('warn') });
    const ws = await createWorkspace(app, { name: 'bench-webhooks.example', websiteUrl: 'https://bench-webhooks.example' });
    await setWebhook(app, ws, { url: receiver.url });

    await barePosts(receiver, 50, 1); // warm up
    const bare = await barePosts(receiver, n, config.webhooks.concurrency);
    const drained = await drain(app, ws, receiver, n);
    const bareOne = await barePosts(receiver, latencyRuns, 1);
    const latency = await publishLatency(app, ws, receiver, latencyRuns);
    await app.close();
    log(`${n} deliveries in ${(drained.ms / 1000).toFixed(2)} s; bare ${bare.reqPerSec.toFixed(0)} POST/s`);
    return [
      { name: 'webhook deliveries (outbox drain, c=4)', reqPerSec: drained.reqPerSec, p50Ms: drained.p50, p99Ms: drained.p99, baselineReqPerSec: bare.reqPerSec, ratio: drained.reqPerSec / bare.reqPerSec },
      { name: 'webhook publish-to-delivery latency', reqPerSec: latency.reqPerSec, p50Ms: latency.p50, p99Ms: latency.p99, baselineReqPerSec: bareOne.reqPerSec, ratio: latency.reqPerSec / bareOne.reqPerSec },
    ];
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Receiver {
  url: string;
  count: number;
  onRequest: (() => void) | null;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const r: Receiver = { url: '', count: 0, onRequest: null, close: async () => {} };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      r.count++;
      r.onRequest?.();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"received":true}');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () => new Promise((ok) => server.close(() => ok()));
  return r;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/** The baseline: POSTs of a payload-sized body with a fresh connection each, as the worker makes them. */
async function barePosts(receiver: Receiver, n: number, concurrency: number) {
  const body = Buffer.alloc(6000, 'x');
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  const one = () =>
    new Promise<void>((ok, fail) => {
      const t = performance.now();
      const req = http.request(receiver.url, { method: 'POST', agent: false, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
        res.resume();
        res.on('end', () => {
          times.push(performance.now() - t);
          ok();
        });
      });
      req.on('error', fail);
      req.end(body);
    });
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < n) await one();
  }));
  const ms = performance.now() - started;
  times.sort((a, b) => a - b);
  return { reqPerSec: (n * 1000) / ms, p50: pct(times, 50), p99: pct(times, 99) };
}

async function makeArticles(app: App, ws: Workspace, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await createArticle(app, ws, { title: `Bench ${i} ${Date.now()}`, bodyMarkdown: BODY })).article.id);
  return ids;
}

/** Queue n events with no worker running, then time the worker draining them. */
async function drain(app: App, ws: Workspace, receiver: Receiver, n: number) {
  for (const id of await makeArticles(app, ws, n)) await publishArticle(app, ws, id);
  const target = receiver.count + n;
  const started = performance.now();
  const done = new Promise<void>((ok) => (receiver.onRequest = () => receiver.count >= target && ok()));
  const worker = startWebhookWorker(app);
  await done;
  const ms = performance.now() - started;
  await worker.stop();
  receiver.onRequest = null;
  const durations = (await app.db('webhook_deliveries').orderBy('created_at', 'desc').limit(n).pluck('duration_ms')).map(Number).sort((a, b) => a - b);
  return { ms, reqPerSec: (n * 1000) / ms, p50: pct(durations, 50), p99: pct(durations, 99) };
}

/** One publish at a time with the worker running: time from publishArticle() to the request at the receiver. */
async function publishLatency(app: App, ws: Workspace, receiver: Receiver, runs: number) {
  const ids = await makeArticles(app, ws, runs);
  const worker = startWebhookWorker(app);
  const times: number[] = [];
  for (const id of ids) {
    const target = receiver.count + 1;
    const arrived = new Promise<void>((ok) => (receiver.onRequest = () => receiver.count >= target && ok()));
    const t = performance.now();
    await publishArticle(app, ws, id);
    await arrived;
    times.push(performance.now() - t);
  }
  receiver.onRequest = null;
  await worker.stop();
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  times.sort((a, b) => a - b);
  return { reqPerSec: 1000 / mean, p50: pct(times, 50), p99: pct(times, 99) };
}
