import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import type { BenchOptions, BenchResult } from './types.js';

// `npm run bench [-- --quick] [-- --out FILE] [-- --only content,cluster]`: the content API bench, the shared-limiter bench,
// one vs two daemons on PostgreSQL, flat out and at one offered rate per daemon (skipped without SVC_BENCH_DATABASE_URL or SVC_TEST_DATABASE_URL), then the webhooks bench, search, markdown rendering (bench/render.ts) and the large archive (bench/archive.ts: import + publish of 50,000 posts beside a bare insert loop, and the reads over them). Each module exports runBench(opts): Promise<BenchResult[]>.
type BenchModule = { runBench(opts: BenchOptions): Promise<BenchResult[]> };

function parseArgs(argv: string[]): { quick: boolean; out: string | null; only: string[] | null } {
  let quick = false;
  let out: string | null = null;
  let only: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') quick = true;
    else if (argv[i] === '--only') only = (argv[++i] ?? '').split(',');
    else if (argv[i] === '--out') out = argv[++i] ?? null;
    else if (argv[i].startsWith('--out=')) out = argv[i].slice(6);
    else throw new Error(`Unknown option ${argv[i]} (use --quick, --out FILE and --only content,limits,cluster,webhooks,search,render,archive,storage)`);
  }
  if (argv.includes('--out') && !out) throw new Error('--out needs a file name');
  return { quick, out, only };
}

function printTable(results: BenchResult[]): void {
  const opt = (n: number | undefined, digits: number) => (n === undefined ? '-' : n.toFixed(digits));
  const rows = results.map((r) => [
    r.name, r.reqPerSec.toFixed(0), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), r.baselineReqPerSec.toFixed(0), r.ratio.toFixed(2),
    opt(r.baselineP99Ms, 2), opt(r.p99Ratio ?? (r.baselineP99Ms && r.p99Ms / r.baselineP99Ms), 2),
    opt(r.cpuUsPerReq, 1), opt(r.baselineCpuUsPerReq, 1), opt(r.cpuRatio ?? (r.cpuUsPerReq && r.baselineCpuUsPerReq && r.cpuUsPerReq / r.baselineCpuUsPerReq), 2),
  ]);
  // p99 x and CPU x: svc's over the baseline's (lower is better; the goals are 1.5 and 1.6), the
  // median of the rounds' ratios where the two ran alternately.
  const head = ['name', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'ratio', 'base p99', 'p99 x', 'CPU us/req', 'base CPU', 'CPU x'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  process.stdout.write(`${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}\n`);
}

async function main(): Promise<void> {
  const { quick, out, only } = parseArgs(process.argv.slice(2));
  const results: BenchResult[] = [];
  const modules = ['./content.js', './limits.js', './cluster.js', './webhooks.js', './search.js', './render.js', './archive.js', './storage.js']
    .filter((m) => m === './content.js' || existsSync(new URL(m, import.meta.url)))
    .filter((m) => !only || only.includes(m.slice(2, -3)));
  for (const m of modules) {
    const mod = (await import(m)) as BenchModule;
    results.push(...(await mod.runBench({ quick })));
  }
  process.stdout.write(`npm run bench${quick ? ' -- --quick' : ''}, ${new Date().toISOString()}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}, ${os.cpus().length} cores\n`);
  printTable(results);
  if (out) {
    await writeFile(out, JSON.stringify(results, null, 2) + '\n');
    process.stdout.write(`wrote ${out}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exitCode = 1;
});
