import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, type App } from '../src/app.js';
import { generateBlogKey } from '../src/auth/blog-keys.js';
import { createArticle } from '../src/publishing/create.js';
import { loadConfig } from '../src/config/load.js';
import { publishArticle } from '../src/publishing/publish.js';
import { createLogger } from '../src/lib/log.js';
import { findConnector } from '../src/connectors/store.js';
import { sendAttempt } from '../src/webhooks/attempt.js';
import { setWebhook } from '../src/webhooks/service.js';
import { dueEvents } from '../src/webhooks/lease-store.js';
import { eventRows, toEvent } from '../src/webhooks/store.js';
import { startWebhookWorker } from '../src/webhooks/worker.js';
import { createWorkspace } from '../src/workspaces/service.js';
import type { Workspace } from '../src/workspaces/types.js';
import { isPostgres } from '../src/db/connect.js';
import { cpuMicros } from './content.js';
import { scratchDatabase } from './scratch-db.js';
import type { BenchOptions, BenchResult } from './types.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const log = (s: string) => process.stderr.write(`[bench webhooks] ${s}\n`);
const BODY = `# Bench\n\n${'## Section\n\nSome words about gardens, soil and seeds. '.repeat(40)}`;

/**
 * Webhook bench, on SQLite and (with SVC_BENCH_DATABASE_URL or SVC_TEST_DATABASE_URL) on
 * PostgreSQL. Receivers run in a process of their own (bench/receiver-server.ts), answering 200
 * at once unless told otherwise. Lines:
 * (1) outbox drain: N queued events delivered by the worker, against a bare node:http POST loop
 *     of the same bytes, same concurrency, keeping its connections as the worker does (run before
 *     and after each drain); also against a bare loop with a new connection per POST, and svc's
 *     send alone (the drain's events sent again with no database and no worker: its ceiling);
 * (2) publish-to-delivery latency, one publish at a time, and (3) under a burst of publishes:
 *     from publishArticle() returning to the receiver having answered;
 * (4) 100 workspaces, each with its own receiver (one slow, one failing, one answering 410):
 *     the healthy ones' deliveries/s against the single-receiver drain;
 * (5) find-due for one claim with 16,000 events queued against 1,000 (flat is 1.0).
 */
export async function runBench(opts: BenchOptions): Promise<BenchResult[]> {
  const results = await runOn('SQLite', null, opts);
  const server = process.env.SVC_BENCH_DATABASE_URL ?? process.env.SVC_TEST_DATABASE_URL;
  if (!server) {
    log('PostgreSQL lines skipped: set SVC_BENCH_DATABASE_URL (or SVC_TEST_DATABASE_URL)');
    return results;
  }
  const db = await scratchDatabase(server, 'svc_bench_wh', log);
  try {
    results.push(...(await runOn('PostgreSQL', db.url, opts)));
  } finally {
    await db.drop();
  }
  return results;
}

/** Drains of the queued events, each between two bare loops; the line reports the median round. */
const DRAIN_ROUNDS = 3;

async function runOn(label: string, databaseUrl: string | null, opts: BenchOptions): Promise<BenchResult[]> {
  const n = opts.quick ? 300 : 1000;
  const latencyRuns = opts.quick ? 30 : 100;
  const burst = opts.quick ? 50 : 200;
  const perReceiver = opts.quick ? 4 : 10;
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-wh-'));
  const behaviours = ['ok', 'slow:2000', 'status:500', 'status:410', ...Array.from({ length: 96 }, () => 'ok')];
  const receivers = await startReceivers(behaviours);
  try {
    const env: Record<string, string> = { SVC_DATA_DIR: dir, SVC_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' };
    if (databaseUrl) env.SVC_DATABASE_URL = databaseUrl;
    const config = loadConfig({ env, cwd: dir });
    const c = config.webhooks.concurrencyPerReceiver;
    const app = await createApp({ config, log: createLogger('warn') });
    const ws = await workspace(app, 'bench-webhooks.example', receivers.urls[0]);

    await drain(app, ws, receivers, 20); // the payload's size, as the receiver reports it (the warm-up is below)
    const bytes = receivers.lastBytes;
    // The receiver parsed each webhook payload (5 kB of JSON) and reported it, but not the bare
    // loop's bytes: in the drains and the bare loops it does neither, the same work for both.
    await receivers.report(false);
    // Drains alternated with bare loops (one run swung 4x between two bare loops of one run on this
    // shared machine): each drain is compared with the mean of the bare loops either side of it,
    // and the line reports the median round.
    // Both sides warm up alike, so no measured round sets a warm side against a cold one: V8 compiles
    // hot code over the first thousands of calls (a bare loop rose 2-4x through a run after one loop;
    // svc's first drains spend CPU on V8's helper threads compiling), and the drains warm node:http's
    // code the bare loops use too. Three unmeasured drains of n, and three loops of each kind.
    // Two bare loops: one keeping its connections as svc does (HTTP keep-alive, the baseline), one
    // with a new connection per POST (svc's way until 2026-11-27, and the first figures).
    const kept = new http.Agent({ keepAlive: true, maxFreeSockets: c, scheduling: 'lifo' });
    const bareKept = () => barePosts(receivers, bytes, n, c, kept);
    const bareNew = () => barePosts(receivers, bytes, n, c, false);
    for (let i = 0; i < 3; i++) {
      await drain(app, ws, receivers, n);
      await bareKept();
      await bareNew();
    }
    const bares = [await bareKept()];
    const fresh = [await bareNew()];
    const drains: Array<Awaited<ReturnType<typeof drain>>> = [];
    const sends: Array<Awaited<ReturnType<typeof sendAlone>>> = [];
    for (let i = 0; i < DRAIN_ROUNDS; i++) {
      drains.push(await drain(app, ws, receivers, n));
      sends.push(await sendAlone(app, ws, n, c));
      bares.push(await bareKept());
      fresh.push(await bareNew());
    }
    // Round i is measured against the two bare loops either side of it, i and i + 1.
    const mean = <T>(xs: T[], i: number, of: (x: T) => number) => (of(xs[i]) + of(xs[i + 1])) / 2;
    const rounds = drains.map((d, i) => ({
      d,
      bare: mean(bares, i, (b) => b.reqPerSec),
      fresh: mean(fresh, i, (b) => b.reqPerSec),
      bareCpu: mean(bares, i, (b) => b.cpuMs),
      bareReceiver: mean(bares, i, (b) => b.receiverMs),
    }));
    rounds.sort((x, y) => x.d.reqPerSec / x.bare - y.d.reqPerSec / y.bare);
    const { d: drained, bare, bareCpu, bareReceiver } = rounds[Math.floor(rounds.length / 2)];
    // Every process of a drain and of a bare loop shares this machine's cores: the CPU a delivery
    // costs, all processes counted (svc, PostgreSQL's backends, the receiver), bounds the drain's rate.
    const drainAll = drained.cpuMs + drained.databaseMs + drained.receiverMs;
    const bareAll = bareCpu + bareReceiver;
    // The most any drain at this CPU cost could deliver here, every core busy with nothing else.
    const cores = os.cpus().length;
    const drainMax = (cores * 1000) / drainAll;
    const freshRatios = rounds.map((r) => r.d.reqPerSec / r.fresh).sort((x, y) => x - y);
    const freshRatio = freshRatios[Math.floor(freshRatios.length / 2)];
    const sendRatios = sends.map((x, i) => ({ x, ratio: x.reqPerSec / mean(bares, i, (b) => b.reqPerSec), cpu: x.cpuMs / mean(bares, i, (b) => b.cpuMs) })).sort((x, y) => x.ratio - y.ratio);
    const sent = sendRatios[Math.floor(sendRatios.length / 2)];
    const bareOne = await barePosts(receivers, bytes, latencyRuns, 1, kept);
    kept.destroy();
    await receivers.report(true);
    const single = await publishLatency(app, ws, receivers, latencyRuns, 1);
    const burstLat = await publishLatency(app, ws, receivers, burst, burst);
    const many = await manyReceivers(app, receivers, perReceiver);
    const finding = await findDueFlatness(app, opts.quick ? 4_000 : 16_000);
    await app.close();
    log(`${label}: ${DRAIN_ROUNDS} drains of ${n} deliveries (${bytes} bytes): ${drains.map((d) => d.reqPerSec.toFixed(0)).join(', ')}/s; bare loops keeping their connections ${bares.map((b) => b.reqPerSec.toFixed(0)).join(', ')} POST/s (c=${c}); ratios ${rounds.map((r) => (r.d.reqPerSec / r.bare).toFixed(2)).join(', ')}, median ${(drained.reqPerSec / bare).toFixed(2)}`);
    log(`${label}: bare loops with a new connection per POST ${fresh.map((b) => b.reqPerSec.toFixed(0)).join(', ')} POST/s; the drains against them ${freshRatios.map((r) => r.toFixed(2)).join(', ')}, median ${freshRatio.toFixed(2)}`);
    log(`${label}: the send alone (no database, no worker) ${sends.map((x) => x.reqPerSec.toFixed(0)).join(', ')}/s; against the bare loops keeping their connections ${sendRatios.map((r) => r.ratio.toFixed(2)).join(', ')}, median ${sent.ratio.toFixed(2)}, CPU per POST ${sent.cpu.toFixed(1)}x: the most a drain could reach`);
    log(`${label}: median round: CPU per delivery ${drained.cpuMs.toFixed(2)} ms; per bare POST ${bareCpu.toFixed(2)} ms (ratio ${(drained.cpuMs / bareCpu).toFixed(1)}x; steadier than req/s on a shared machine)`);
    log(`${label}: median round, CPU by process: per delivery svc ${drained.cpuMs.toFixed(3)} + database ${drained.databaseMs.toFixed(3)} + receiver ${drained.receiverMs.toFixed(3)} = ${drainAll.toFixed(3)} ms; per bare POST loop ${bareCpu.toFixed(3)} + receiver ${bareReceiver.toFixed(3)} = ${bareAll.toFixed(3)} ms (${(drainAll / bareAll).toFixed(1)}x); at that cost this machine's ${cores} cores deliver at most ${drainMax.toFixed(0)}/s, ${(drainMax / bare).toFixed(2)} of the bare loop's rate`);
    log(`${label}: latency one at a time p50 ${single.p50.toFixed(1)} ms p99 ${single.p99.toFixed(1)} ms; burst of ${burst} p50 ${burstLat.p50.toFixed(1)} ms p99 ${burstLat.p99.toFixed(1)} ms`);
    log(`${label}: find-due, one claim's walk: ${finding.small.ms.toFixed(2)} ms at ${finding.small.queued} queued, ${finding.large.ms.toFixed(2)} ms at ${finding.large.queued}`);
    log(`${label}: 100 receivers: ${many.healthy} healthy deliveries in ${(many.ms / 1000).toFixed(2)} s = ${many.reqPerSec.toFixed(0)}/s; the slow receiver had answered ${many.slowAnswered} of ${perReceiver} by then`);
    return [
      { name: `webhook drain, ${n} events (${label}, c=${c}, median of ${DRAIN_ROUNDS} rounds)`, reqPerSec: drained.reqPerSec, p50Ms: drained.p50, p99Ms: drained.p99, baselineReqPerSec: bare, ratio: drained.reqPerSec / bare, cpuUsPerReq: drainAll * 1000, baselineCpuUsPerReq: bareAll * 1000 },
      { name: `webhook drain vs a bare loop with a new connection per POST (${label})`, reqPerSec: drained.reqPerSec, p50Ms: drained.p50, p99Ms: drained.p99, baselineReqPerSec: drained.reqPerSec / freshRatio, ratio: freshRatio },
      { name: `webhook send alone, no database: the drain's ceiling (${label})`, reqPerSec: sent.x.reqPerSec, p50Ms: sent.x.p50, p99Ms: sent.x.p99, baselineReqPerSec: sent.x.reqPerSec / sent.ratio, ratio: sent.ratio },
      { name: `webhook publish-to-delivery, one at a time (${label})`, reqPerSec: single.reqPerSec, p50Ms: single.p50, p99Ms: single.p99, baselineReqPerSec: bareOne.reqPerSec, ratio: single.reqPerSec / bareOne.reqPerSec },
      { name: `webhook publish-to-delivery, burst of ${burst} (${label})`, reqPerSec: burstLat.reqPerSec, p50Ms: burstLat.p50, p99Ms: burstLat.p99, baselineReqPerSec: bare, ratio: burstLat.reqPerSec / bare },
      { name: `webhook 100 receivers, healthy ones (${label}; vs 1 receiver)`, reqPerSec: many.reqPerSec, p50Ms: many.p50, p99Ms: many.p99, baselineReqPerSec: drained.reqPerSec, ratio: many.reqPerSec / drained.reqPerSec },
      { name: `webhook find-due, ${finding.large.queued} queued vs ${finding.small.queued} (${label}; calls/s, flat is 1.0)`, reqPerSec: 1000 / finding.large.ms, p50Ms: finding.large.ms, p99Ms: finding.large.ms, baselineReqPerSec: 1000 / finding.small.ms, ratio: finding.small.ms / finding.large.ms },
    ];
  } finally {
    receivers.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function workspace(app: App, name: string, url: string): Promise<Workspace> {
  const ws = await createWorkspace(app, { name, websiteUrl: `https://${name}` });
  await generateBlogKey(app, ws); // a headless connector too: the publish renders the body once for both
  await setWebhook(app, ws, { url });
  return ws;
}

interface Receivers {
  urls: string[];
  /** Size of the last request body the receivers reported. */
  lastBytes: number;
  onAnswer: ((m: { i: number; article: string; at: number }) => void) | null;
  /** Parse and report every answer (latency lines), or neither (the drains and the bare loops, so both cost the receiver the same). */
  report(on: boolean): Promise<void>;
  close(): void;
  /** The receivers' process. */
  pid: number | undefined;
}

async function startReceivers(behaviours: string[]): Promise<Receivers> {
  const child: ChildProcess = fork(path.join(HERE, 'receiver-server.js'), [JSON.stringify(behaviours)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const ports = await new Promise<number[]>((ok, fail) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) ok(JSON.parse(buf.split('\n')[0]) as number[]);
    });
    child.once('exit', (code) => fail(new Error(`receiver process exited (${code})`)));
  });
  let acked: (() => void) | null = null;
  const r: Receivers = {
    urls: ports.map((p) => `http://127.0.0.1:${p}/hook`),
    lastBytes: 0,
    onAnswer: null,
    // Bounded: a receiver process that died or hangs fails the bench instead of holding it.
    report: (on) =>
      new Promise<void>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error('the receiver process did not acknowledge within 5 s')), 5_000);
        acked = () => {
          clearTimeout(timer);
          ok();
        };
        child.send(on ? 'notify' : 'quiet');
      }),
    close: () => child.kill('SIGTERM'),
    pid: child.pid,
  };
  child.on('message', (m: { i: number; article: string; bytes: number; at: number } | { ack: string }) => {
    if ('ack' in m) return acked?.();
    r.lastBytes = m.bytes;
    r.onAnswer?.(m);
  });
  await r.report(true);
  return r;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/** The baseline: POSTs of svc's payload size, on kept connections as the worker makes them (`agent`), or a new connection each (false). */
async function barePosts(receivers: Receivers, bytes: number, n: number, concurrency: number, agent: http.Agent | false) {
  const url = receivers.urls[0];
  const body = Buffer.alloc(bytes, 'x');
  const others = await otherProcesses(null, receivers);
  const loop = await timedLoop(n, concurrency, () => {
    const t = performance.now();
    return new Promise<number>((ok, fail) => {
      const req = http.request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': body.length } }, (res) => {
        res.resume();
        res.on('end', () => ok(performance.now() - t));
      });
      req.on('error', fail);
      req.end(body);
    });
  });
  return { ...loop, receiverMs: (await others.per(n)).receiverMs };
}

/**
 * svc's send path alone, the drain's ceiling: the last `n` events of the workspace (the drain's,
 * read before the clock starts) sent again through sendAttempt (payload, signature, POST on the
 * worker's kept connections) at concurrency `c`; no claim, no record, no worker.
 */
async function sendAlone(app: App, ws: Workspace, n: number, c: number) {
  const connector = (await findConnector(app.db, ws.id, 'webhook'))!;
  const events = (await eventRows(app.db).where({ connector_id: connector.id }).orderBy('seq', 'desc').limit(n)).map(toEvent);
  const lease = { holderId: 'bench', token: 'bench', until: new Date(Date.now() + 3_600_000).toISOString() };
  return timedLoop(events.length, c, async (i) => {
    const sent = await sendAttempt(app, events[i], connector, lease, null);
    if (!sent.outcome.ok) throw new Error(`the send alone failed: ${sent.outcome.error}`);
    return sent.outcome.durationMs;
  });
}

/** `one(i)` for i below n, at most `concurrency` at once, each answering its duration in ms: rate, p50, p99 and CPU per call. */
async function timedLoop(n: number, concurrency: number, one: (i: number) => Promise<number>) {
  const times: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) times.push(await one(next++));
    }),
  );
  const ms = performance.now() - started;
  times.sort((a, b) => a - b);
  return { reqPerSec: (n * 1000) / ms, p50: pct(times, 50), p99: pct(times, 99), cpuMs: cpuMsPer(cpu, n) };
}

/**
 * The CPU time the other processes of a drain or a bare loop spend: the receivers' process, and
 * on PostgreSQL the server's backends serving this database (svc's pool; a backend that started
 * meanwhile counts whole). `per(n)`: their time since this call, in ms per request.
 */
async function otherProcesses(app: App | null, receivers: Receivers) {
  const backends = async () => (app && isPostgres(app.db) ? ((await app.db.raw('select pid from pg_stat_activity where datname = current_database()')).rows as Array<{ pid: number }>).map((r) => r.pid) : []);
  const receiverFrom = cpuMicros(receivers.pid) ?? 0;
  const databaseFrom = new Map((await backends()).map((pid) => [pid, cpuMicros(pid) ?? 0]));
  return {
    async per(n: number) {
      let database = 0;
      for (const pid of await backends()) database += (cpuMicros(pid) ?? 0) - (databaseFrom.get(pid) ?? 0);
      return { receiverMs: ((cpuMicros(receivers.pid) ?? 0) - receiverFrom) / 1000 / n, databaseMs: database / 1000 / n };
    },
  };
}

/** This process's user+system CPU time (all its threads, SQLite's included) per request since `from`. */
const cpuMsPer = (from: NodeJS.CpuUsage, n: number) => {
  const c = process.cpuUsage(from);
  return (c.user + c.system) / 1000 / n;
};

async function makeArticles(app: App, ws: Workspace, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await createArticle(app, ws, { title: `Bench ${i} ${Date.now()}`, bodyMarkdown: BODY })).article.id);
  return ids;
}

/** Wait until `n` attempts were recorded (settled in the database) in this process. */
function recorded(app: App, n: number): Promise<void> {
  let seen = 0;
  return new Promise<void>((ok) => {
    const on = (e: { recorded: boolean }) => {
      if (e.recorded && ++seen >= n) {
        app.events.off('webhooks.attempted', on);
        ok();
      }
    };
    app.events.on('webhooks.attempted', on);
  });
}

/** Queue n events with no worker running, then time the worker draining them (until every attempt is recorded). */
async function drain(app: App, ws: Workspace, receivers: Receivers, n: number) {
  for (const id of await makeArticles(app, ws, n)) await publishArticle(app, ws, id);
  const done = recorded(app, n);
  const others = await otherProcesses(app, receivers);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const worker = startWebhookWorker(app);
  await done;
  const ms = performance.now() - started;
  const cpuMs = cpuMsPer(cpu, n);
  const { receiverMs, databaseMs } = await others.per(n);
  await worker.stop();
  const durations = (await app.db('webhook_deliveries').orderBy('created_at', 'desc').limit(n).pluck('duration_ms')).map(Number).sort((a, b) => a - b);
  return { ms, reqPerSec: (n * 1000) / ms, p50: pct(durations, 50), p99: pct(durations, 99), cpuMs, receiverMs, databaseMs };
}

/**
 * With the worker running, `runs` publishes in waves of `wave` (1: one at a time, waiting for
 * each delivery; more: a burst, publishes back to back): time from publishArticle() returning
 * to the receiver having answered that article's event.
 */
async function publishLatency(app: App, ws: Workspace, receivers: Receivers, runs: number, wave: number) {
  const ids = await makeArticles(app, ws, runs);
  const worker = startWebhookWorker(app);
  const times: number[] = [];
  const returned = new Map<string, number>();
  const answered = new Map<string, number>();
  let waiting: (() => void) | null = null;
  receivers.onAnswer = (m) => {
    answered.set(m.article, m.at); // when the receiver answered, not when this busy process heard of it
    if (answered.size >= returned.size) waiting?.();
  };
  const started = performance.now();
  for (let i = 0; i < ids.length; i += wave) {
    const batch = ids.slice(i, i + wave);
    const all = new Promise<void>((ok) => (waiting = () => batch.every((id) => answered.has(id)) && ok()));
    for (const id of batch) {
      await publishArticle(app, ws, id);
      returned.set(id, performance.timeOrigin + performance.now());
    }
    waiting!();
    await all;
  }
  const ms = performance.now() - started;
  receivers.onAnswer = null;
  await worker.stop();
  for (const id of ids) times.push(answered.get(id)! - returned.get(id)!);
  times.sort((a, b) => a - b);
  return { reqPerSec: (runs * 1000) / ms, p50: pct(times, 50), p99: pct(times, 99) };
}

/**
 * 100 workspaces, each with its own receiver: #1 answers after 2 s, #2 with 500, #3 with 410,
 * the rest at once. `k` events each are queued, then the worker runs until the healthy ones
 * have all answered: their deliveries/s, and how many the slow one had answered by then.
 */
async function manyReceivers(app: App, receivers: Receivers, k: number) {
  const spaces: Workspace[] = [];
  for (let i = 0; i < receivers.urls.length; i++) spaces.push(await workspace(app, `r${i}-${Date.now().toString(36)}.example`, receivers.urls[i]));
  for (const ws of spaces) for (const id of await makeArticles(app, ws, k)) await publishArticle(app, ws, id);
  const healthy = new Set(receivers.urls.map((_, i) => i).filter((i) => i === 0 || i >= 4));
  const target = healthy.size * k;
  let got = 0;
  let slowAnswered = 0;
  const times: number[] = [];
  const started = performance.now();
  const done = new Promise<void>((ok) => {
    receivers.onAnswer = (m) => {
      if (m.i === 1) slowAnswered++;
      if (!healthy.has(m.i)) return;
      times.push(performance.now() - started);
      if (++got >= target) ok();
    };
  });
  const worker = startWebhookWorker(app);
  await done;
  const ms = performance.now() - started;
  const slowAtEnd = slowAnswered;
  receivers.onAnswer = null;
  await worker.stop(AbortSignal.timeout(50));
  times.sort((a, b) => a - b);
  return { ms, healthy: target, reqPerSec: (target * 1000) / ms, p50: pct(times, 50), p99: pct(times, 99), slowAnswered: slowAtEnd };
}

/**
 * One claim's find-due (the worker's arguments: room for 256, 64 a receiver) with 1,000 and then `large` events queued
 * for one receiver, copies of a real one (as many publishes would take minutes): the median of 7 calls each.
 */
async function findDueFlatness(app: App, large: number) {
  const ws = await workspace(app, `due-${Date.now().toString(36)}.example`, 'http://127.0.0.1:9/hook');
  const [id] = await makeArticles(app, ws, 1);
  await publishArticle(app, ws, id);
  const [{ seq, ...event }] = await app.db('webhook_events').where({ article_id: id });
  const [snapshot] = await app.db('webhook_event_snapshots').where({ event_id: event.id });
  const at = { now: new Date(Date.now() + 60_000).toISOString(), freshSince: new Date(Date.now() - 10_000).toISOString() };
  let queued = 1;
  const measure = async (n: number) => {
    for (; queued < n; queued += 500) {
      const rows = Array.from({ length: Math.min(500, n - queued) }, (_, k) => ({ ...event, id: `evt_due${seq}x${queued + k}`, article_id: `art_due${seq}x${queued + k}` }));
      await app.db('webhook_events').insert(rows);
      await app.db('webhook_event_snapshots').insert(rows.map((r) => ({ event_id: r.id, snapshot: snapshot.snapshot })));
    }
    if (isPostgres(app.db)) await app.db.raw('analyze webhook_events');
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      await dueEvents(app.db, at, 256, [], [], 64);
      times.push(performance.now() - t);
    }
    return { queued: n, ms: times.sort((a, b) => a - b)[3] };
  };
  const small = await measure(1_000);
  const result = { small, large: await measure(large) };
  // Gone before the other lines of a later run read the queue.
  await app.db('webhook_events').where({ connector_id: event.connector_id }).delete();
  return result;
}

// `node dist/bench/webhooks.js [--quick]`: this bench alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runBench({ quick: process.argv.includes('--quick') })
    .then((rs) => {
      for (const r of rs) process.stdout.write(`${r.name}: ${r.reqPerSec.toFixed(0)}/s p50 ${r.p50Ms.toFixed(1)} ms p99 ${r.p99Ms.toFixed(1)} ms; baseline ${r.baselineReqPerSec.toFixed(0)}/s; ratio ${r.ratio.toFixed(2)}\n`);
      process.exit(0);
    })
    .catch((err) => {
      process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    });
}
