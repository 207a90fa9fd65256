import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { migrateLatest, migrateStep, migrationStatus } from '../../src/db/migrate.js';
import { runCli } from '../helpers/cli.js';
import { PG_URL, freshConfig, freshEnv } from '../helpers/env.js';

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const NAMES = readdirSync(MIGRATIONS)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

// The domain of decisions.md: these tables must exist after `migrate latest`.
const CORE_TABLES = ['workspaces', 'users', 'memberships', 'articles', 'connectors', 'usage_counters'];

async function tables(db: ReturnType<typeof openDb>): Promise<string[]> {
  if (PG_URL) {
    const rows = await db('information_schema.tables').where({ table_schema: 'public' }).select('table_name');
    return rows.map((r: { table_name: string }) => r.table_name).sort();
  }
  const rows = await db('sqlite_master').where({ type: 'table' }).whereNot('name', 'like', 'sqlite_%').select('name');
  return rows.map((r: { name: string }) => r.name).sort();
}

describe(`migrations (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('are named YYYY-MM-DD-HHMM-<verb>-<thing> and unique', () => {
    for (const name of NAMES) expect(name).toMatch(/^\d{4}-\d{2}-\d{2}-\d{4}-[a-z]+(-[a-z0-9]+)+$/);
    expect(new Set(NAMES).size).toBe(NAMES.length);
  });

  it('migrate an empty database to latest, all the way down, and up again', async () => {
    const { config } = await freshConfig();
    const db = openDb(config.database);
    try {
      expect(await migrateLatest(db)).toEqual(NAMES);
      const created = await tables(db);
      for (const t of CORE_TABLES) expect(created).toContain(t);
      expect(await migrationStatus(db)).toEqual({ applied: NAMES, pending: [], unknown: [] });

      // Each down() alone, newest first, then each up() alone: a broken one is named.
      for (const name of [...NAMES].reverse()) expect(await migrateStep(db, 'down'), `down ${name}`).toEqual([name]);
      expect(await tables(db)).toEqual(['knex_migrations', 'knex_migrations_lock']);
      for (const name of NAMES) expect(await migrateStep(db, 'up'), `up ${name}`).toEqual([name]);
      expect(await tables(db)).toEqual(created);

      // And the whole way in one batch.
      expect(await migrateStep(db, 'all')).toEqual([...NAMES].reverse());
      expect(await tables(db)).toEqual(['knex_migrations', 'knex_migrations_lock']);
      expect(await migrationStatus(db)).toEqual({ applied: [], pending: NAMES, unknown: [] });

      expect(await migrateLatest(db)).toEqual(NAMES);
      expect(await tables(db)).toEqual(created);
    } finally {
      await db.destroy();
    }
  });

  it('migrate latest is idempotent', async () => {
    const { config } = await freshConfig();
    const db = openDb(config.database);
    try {
      await migrateLatest(db);
      expect(await migrateLatest(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});

describe.skipIf(Boolean(PG_URL))('SQLite connection settings', () => {
  it('runs in WAL mode with a busy timeout and foreign keys on, on every pooled connection', async () => {
    const { config } = await freshConfig({ 'database.poolMax': 3 });
    const db = openDb(config.database);
    try {
      await migrateLatest(db);
      // Hold three connections at once so each one's pragmas are read.
      const reads = await Promise.all(
        [0, 1, 2].map(() =>
          db.transaction(async (trx) => {
            const journal = await trx.raw('PRAGMA journal_mode');
            const fk = await trx.raw('PRAGMA foreign_keys');
            const busy = await trx.raw('PRAGMA busy_timeout');
            await new Promise((r) => setTimeout(r, 20));
            return [journal[0].journal_mode, fk[0].foreign_keys, Object.values(busy[0])[0]];
          }),
        ),
      );
      for (const r of reads) expect(r).toEqual(['wal', 1, 5000]);
      // Foreign keys are enforced: a membership needs its workspace.
      await expect(db('memberships').insert({ workspace_id: 'ws_missing', user_id: 'usr_missing', role: 'admin', created_at: new Date().toISOString() })).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await db.destroy();
    }
  });
});

describe('opening a database that cannot be opened', () => {
  it('says which database and how to fix it', async () => {
    const { dir, env } = await freshEnv();
    const bad: Record<string, string> = PG_URL ? { SVC_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' } : { SVC_DATA_DIR: path.join(dir, 'file.txt') };
    if (!PG_URL) (await import('node:fs')).writeFileSync(path.join(dir, 'file.txt'), 'not a directory');
    const r = await runCli(['migrate'], { env: { ...env, ...bad }, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(PG_URL ? /^error: Cannot reach the database postgres:\/\/postgres@127\.0\.0\.1:1\/none: it refused the connection \(refused\)\nhint: database driver: connect ECONNREFUSED/ : /^error: Cannot create the data directory .*file\.txt: it exists and is not a directory/);
    expect(r.stderr).toMatch(/\nhint: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a file that is not a database', async () => {
    const { dir, env } = await freshEnv();
    (await import('node:fs')).writeFileSync(path.join(dir, 'junk.sqlite'), 'this is not sqlite '.repeat(100));
    const r = await runCli(['migrate'], { env: { ...env, SVC_DATABASE_URL: '', SVC_DATABASE_FILENAME: path.join(dir, 'junk.sqlite') }, cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: Cannot use the database sqlite:${path.join(dir, 'junk.sqlite')}: it is damaged (not a valid database file) (corrupt)\n` +
        'hint: database driver: SQLITE_NOTADB: file is not a database; restore the latest backup (svc restore), or check the disk\n',
    );
  });
});
