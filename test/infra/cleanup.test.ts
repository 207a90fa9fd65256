import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PG_URL } from '../helpers/env.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

// vitest ignores afterAll called inside a test: the helpers' cleanups never ran, and two runs
// left 864 PostgreSQL databases (7.6 GB) and 1,879 temp dirs behind. They run now at the end of
// each file (helpers/cleanup.ts): a test file made in a vitest of its own shows it.
describe('what tests make is cleaned up when their file ends', () => {
  it('a daemon, its data dir and database, and a temp dir made inside a test are gone after the run', async () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/infra/fixtures/vitest.config.ts'], {
      cwd: ROOT,
      env: { ...process.env, VITEST: undefined, VITEST_POOL_ID: undefined, VITEST_WORKER_ID: undefined },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const made = JSON.parse(/MADE (\{.*\})/.exec(r.stdout)![1]) as { dataDir: string; database: string | null; temp: string };
    expect(existsSync(made.dataDir)).toBe(false);
    expect(existsSync(made.temp)).toBe(false);
    expect(Boolean(made.database)).toBe(Boolean(PG_URL));
    if (made.database) {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        const name = new URL(made.database).pathname.slice(1);
        expect((await c.query('select 1 from pg_database where datname = $1', [name])).rowCount).toBe(0);
      } finally {
        await c.end();
      }
    }
  }, 150_000);
});
