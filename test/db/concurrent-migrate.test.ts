import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { openDb } from '../../src/db/connect.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { PG_URL, freshEnv } from '../helpers/env.js';
import { logLines, spawnServe } from '../helpers/serve.js';

const ROUNDS = 3;

/** knex's own tables as they are: the lock rows and the applied migration names. */
async function knexTables(env: Record<string, string>, dir: string): Promise<{ locks: Array<{ is_locked: number }>; applied: string[] }> {
  const db = openDb(loadConfig({ env, cwd: dir }).database);
  try {
    const locks = (await db('knex_migrations_lock').select('is_locked')).map((r) => ({ is_locked: Number(r.is_locked) }));
    const applied = (await db('knex_migrations').orderBy('id').select('name')).map((r) => r.name as string);
    return { locks, applied };
  } finally {
    await db.destroy();
  }
}

describe(`processes starting together on an empty database (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it(`svc serve and svc migrate started at once never fail, leave one unlocked knex lock row, and later commands work (${ROUNDS} rounds)`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const { dir, env } = await freshEnv();
      // Several daemons on PostgreSQL; on SQLite one daemon per file, and CLI commands beside it.
      const daemons = Array.from({ length: PG_URL ? 2 : 1 }, () => spawnServe(env, dir));
      const commands = [
        spawnCli(['migrate', '--json'], { env, cwd: dir }),
        spawnCli(['migrate', '--json'], { env, cwd: dir }),
        // A command that writes: one that only reads may start before the file exists, and is refused then.
        spawnCli(['users', 'add', '--email', 'a@example.com', '--password', 'long-enough', '--json'], { env, cwd: dir }),
      ];
      const results = await Promise.all(commands);
      for (const r of results) expect(r.code, `round ${round}: ${r.stderr}`).toBe(0);
      await Promise.all(daemons.map((d) => d.ready));

      expect(results[2].json()).toMatchObject({ email: 'a@example.com' });
      for (const d of daemons) d.child.kill('SIGTERM');
      for (const d of daemons) expect(await d.exited, d.stdout() + d.stderr()).toEqual({ code: 0, signal: null });

      // Every migration applied exactly once, by whichever process got the lock first.
      const status = await spawnCli(['migrate', '--status', '--json'], { env, cwd: dir });
      expect(status.code, status.stderr).toBe(0);
      expect(status.json()).toMatchObject({ pending: [], unknown: [] });
      expect(await knexTables(env, dir)).toEqual({ locks: [{ is_locked: 0 }], applied: status.json().applied });
    }
  }, 180_000);
});

describe('a knex lock table left stuck by an earlier run', () => {
  // Two rows: what processes racing on an empty database left before svc had its own lock (knex
  // then counts two unlocked rows and says "Migration table is already locked" forever). One row
  // set: a rollback killed between taking knex's lock and freeing it.
  const stuck = {
    'a second lock row': (db: Knex) => db('knex_migrations_lock').insert({ is_locked: 0 }),
    'the lock left set': (db: Knex) => db('knex_migrations_lock').update({ is_locked: 1 }),
  };
  for (const [what, damage] of Object.entries(stuck)) {
    it(`is repaired by the next migrate, logged (${what}); every command works again`, async () => {
      const { dir, env } = await freshEnv();
      expect((await runCli(['migrate'], { env, cwd: dir })).code).toBe(0);
      const db = openDb(loadConfig({ env, cwd: dir }).database);
      try {
        await damage(db);
        // knex alone is stuck now.
        await expect(db.migrate.latest({ migrationSource: { getMigrations: async () => [], getMigrationName: String, getMigration: async () => ({}) as never }, disableMigrationsListValidation: true })).rejects.toThrow(
          'Migration table is already locked',
        );
      } finally {
        await db.destroy();
      }

      // As an operator runs it: no SVC_LOG_LEVEL, so migrate reports what it does on stderr.
      const { SVC_LOG_LEVEL: _quiet, ...operatorEnv } = env;
      const r = await runCli(['migrate'], { env: operatorEnv, cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('Already up to date\n');
      expect(logLines(r.stderr)).toEqual([
        expect.objectContaining({ level: 40, msg: "repaired knex's migration lock table (knex_migrations_lock): it was left locked or doubled by an earlier run" }),
      ]);
      expect((await knexTables(env, dir)).locks).toEqual([{ is_locked: 0 }]);
      const later = await runCli(['workspaces', 'list', '--json'], { env, cwd: dir });
      expect(later.code, later.stderr).toBe(0);
      expect(later.stderr).toBe('');
    }, 60_000);
  }
});
