import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { PG_URL, tempDir } from '../helpers/env.js';
import { UNCLAIMED_MAX_AGE_MS, verdict } from '../helpers/pg-runs.js';
import { until } from '../helpers/serve.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A vitest run of its own (test/infra/fixtures), in a process group of its own so it can be killed whole. */
function nestedRun(filter: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/infra/fixtures/vitest.config.ts', filter], {
    cwd: ROOT,
    env: { ...process.env, VITEST: undefined, VITEST_POOL_ID: undefined, VITEST_WORKER_ID: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  onTestFinished(() => killGroup(child));
  return { child, ended, output: () => output };
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

const exists = async (name: string) => (await query('select 1 from pg_database where datname = $1', [name])).length === 1;

describe.skipIf(!PG_URL)('PostgreSQL test databases of runs killed midway', () => {
  it('the next run drops a killed run\'s databases, and keeps a live run\'s and its own', async () => {
    const dir = tempDir();
    const holding = (name: string) => {
      const report = path.join(dir, `${name}.json`);
      const end = path.join(dir, `${name}.end`);
      const run = nestedRun('holds-a-database', { SVC_TEST_HOLD_REPORT: report, SVC_TEST_HOLD_UNTIL: end });
      return { ...run, report, end };
    };
    const killed = holding('killed');
    const live = holding('live');
    await until(() => existsSync(killed.report) && existsSync(live.report), 120_000, `both runs to hold their databases:\n${killed.output()}\n${live.output()}`);
    const killedDbs = JSON.parse(readFileSync(killed.report, 'utf8')) as { database: string; template: string };
    const liveDbs = JSON.parse(readFileSync(live.report, 'utf8')) as { database: string; template: string };

    // SIGKILL: no teardown runs. The server ends the run's sessions once their sockets close.
    killGroup(killed.child);
    expect((await killed.ended).signal).toBe('SIGKILL');
    const killedRun = Number.parseInt(/^svc_t_r_([0-9a-z]+)_/.exec(killedDbs.database)![1], 36);
    await until(async () => (await query(`select 1 from pg_locks where locktype = 'advisory' and objid = $1::int::oid and objsubid = 2`, [killedRun])).length === 0, 30_000, 'the killed run\'s session to end');
    for (const name of [killedDbs.database, killedDbs.template, liveDbs.database, liveDbs.template]) expect(await exists(name), name).toBe(true);

    // A run starting now sweeps before it makes anything.
    const next = nestedRun('makes-things');
    expect((await next.ended).code, next.output()).toBe(0);
    expect(next.output()).toMatch(/note: dropped \d+ PostgreSQL test databases? left by runs that ended without cleaning up/);
    expect({ killed: await exists(killedDbs.database), killedTemplate: await exists(killedDbs.template) }).toEqual({ killed: false, killedTemplate: false });
    expect({ live: await exists(liveDbs.database), liveTemplate: await exists(liveDbs.template), ours: await exists(inject('pgTemplate')) }).toEqual({ live: true, liveTemplate: true, ours: true });

    // The live run still uses its database, and drops both when it ends.
    writeFileSync(live.end, '');
    expect((await live.ended).code, live.output()).toBe(0);
    expect({ live: await exists(liveDbs.database), liveTemplate: await exists(liveDbs.template) }).toEqual({ live: false, liveTemplate: false });
  }, 300_000);
});

describe('databases named before runs took locks', () => {
  it('are dropped only once older than a day', () => {
    const now = Date.UTC(2026, 10, 30, 12);
    const at = (ms: number) => ms.toString(36);
    const old = now - UNCLAIMED_MAX_AGE_MS - 60_000;
    const recent = now - 60 * 60_000;
    expect([`svc_t_${at(old)}_abc123`, `svc_t_template_${at(old)}`, `svc_t_${at(recent)}_abc123`, `svc_t_template_${at(recent)}`, 'svc_t_r_k3j9_template', 'svc_t_r_zz_mf1_ab12', 'svc_t_other', 'svc_bench_1'].map((name) => verdict(name, new Set(['k3j9']), now))).toEqual([
      'old',
      'old',
      'recent',
      'recent',
      'live',
      'abandoned',
      'not ours',
      'not ours',
    ]);
  });
});
