import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/connect.js';
import { runCli } from '../helpers/cli.js';
import { createPgDatabase, tempDir } from '../helpers/env.js';
import { PG_ADMIN, pgAvailable } from './pg.js';

// Backups that break svc's constraints, crafted from a real one with SQLite's own SQL. The
// installation is SQLite whatever engine the suite runs on (restore and db copy read SQLite).
const sqliteEnv = (dir: string) => ({ SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'silent' });
const PG = await pgAvailable();
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A data directory with two workspaces, a user and articles, and a backup of it. */
async function installation(): Promise<{ dir: string; env: Record<string, string>; backup: string }> {
  const dir = tempDir();
  const env = sqliteEnv(dir);
  const cli = async (...args: string[]) => {
    const r = await runCli(args, { env, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
  };
  await cli('workspaces', 'add', '--name', 'one.example', '--website', 'https://one.example');
  await cli('workspaces', 'add', '--name', 'two.example', '--website', 'https://two.example');
  await cli('users', 'add', '--email', 'ann@example.com', '--password', 'ann-password-1', '--name', 'Ann');
  await cli('users', 'add', '--email', 'bob@example.com', '--password', 'bob-password-1', '--name', 'Bob');
  for (const title of ['First post', 'Second post', 'Third post']) await cli('articles', 'add', '--workspace', 'one.example', '--title', title, '--body', 'Words.');
  const backup = path.join(tempDir(), 'good.sqlite');
  await cli('backup', '--out', backup);
  return { dir, env, backup };
}

/** A copy of `from` changed by `sql`, run without foreign keys and with a table's constraints dropped when `loosen` names it. */
async function crafted(from: string, name: string, sql: string[], loosen?: string): Promise<string> {
  const file = path.join(path.dirname(from), `${name}.sqlite`);
  copyFileSync(from, file);
  const db = openDb({ client: 'sqlite3', filename: file, poolMax: 1 });
  try {
    await db.raw('PRAGMA foreign_keys = OFF');
    if (loosen) {
      // The same columns without NOT NULL, UNIQUE or indexes; other tables' references untouched.
      await db.raw('PRAGMA legacy_alter_table = ON');
      await db.raw(`ALTER TABLE "${loosen}" RENAME TO "${loosen}_strict"`);
      await db.raw(`CREATE TABLE "${loosen}" AS SELECT * FROM "${loosen}_strict"`);
      await db.raw(`DROP TABLE "${loosen}_strict"`);
    }
    for (const s of sql) await db.raw(s);
  } finally {
    await db.destroy();
  }
  return file;
}

/** The backups, each with the words its refusal must carry. */
async function badBackups(backup: string): Promise<Array<[string, string]>> {
  return [
    [await crafted(backup, 'orphan', ["UPDATE articles SET workspace_id = 'ws_gone' WHERE title <> 'First post'"]), 'articles: 2 rows with workspace_id naming no workspaces row'],
    [await crafted(backup, 'duplicate', ["UPDATE users SET email = 'ann@example.com'"], 'users'), 'users: 2 rows with duplicate (email)'],
    [await crafted(backup, 'null', ["UPDATE workspaces SET website_url = NULL WHERE name = 'two.example'"], 'workspaces'), 'workspaces: 1 row with NULL in website_url'],
    [await crafted(backup, 'gap', ["DELETE FROM knex_migrations WHERE name = '2026-11-23-1000-add-webhook-leases'"]), 'is missing a migration that later migrations it has build on (2026-11-23-1000-add-webhook-leases)'],
  ];
}

describe('a backup that breaks svc\'s constraints is refused by name, and nothing changes', () => {
  it('svc restore: orphan rows, duplicates, NULLs and a missing migration', async () => {
    const { dir, env, backup } = await installation();
    const target = path.join(dir, 'svc.sqlite');
    const hash = sha(target);
    const listing = () => readdirSync(dir).filter((f) => !f.endsWith('-daemon.lock')).sort();
    const before = listing();
    for (const [file, words] of await badBackups(backup)) {
      const r = await runCli(['restore', file, '--yes', '--json'], { env, cwd: dir });
      expect({ file, code: r.code }, r.stderr).toEqual({ file, code: 1 });
      const { error } = r.json<{ error: { code: string; message: string } }>();
      expect({ file, code: error.code }).toEqual({ file, code: 'backup_invalid' });
      expect(error.message).toContain(file);
      expect(error.message).toContain(words);
      expect(sha(target)).toBe(hash);
      expect(listing()).toEqual(before);
    }
    // For people: one message and a hint, no stack, no "internal error".
    const human = await runCli(['restore', path.join(path.dirname(backup), 'orphan.sqlite'), '--yes'], { env, cwd: dir });
    expect(human.stderr).toMatch(/^error: .*orphan\.sqlite holds rows svc's schema forbids, so nothing was changed: articles: 2 rows with workspace_id naming no workspaces row\nhint: Use another backup/);
    // The good backup still restores.
    expect((await runCli(['restore', backup, '--yes'], { env, cwd: dir })).code).toBe(0);
  }, 60_000);

  it.runIf(PG)('svc db copy into PostgreSQL: the same refusals, and the target is left untouched', async () => {
    const { backup } = await installation();
    const to = await createPgDatabase(PG_ADMIN);
    const refused = async (file: string, words: string) => {
      const dir = tempDir();
      copyFileSync(file, path.join(dir, 'svc.sqlite'));
      const r = await runCli(['db', 'copy', '--to', to, '--json'], { env: sqliteEnv(dir), cwd: dir });
      expect({ file, code: r.code }, r.stderr).toEqual({ file, code: 1 });
      const { error } = r.json<{ error: { code: string; message: string } }>();
      expect({ file, code: error.code }).toEqual({ file, code: 'backup_invalid' });
      expect(error.message).toContain(words);
    };
    const pg = openDb({ client: 'pg', url: to, filename: '', poolMax: 1 });
    try {
      // Refused before the target is touched: not even svc's tables are made there.
      for (const [file, words] of await badBackups(backup)) await refused(file, words);
      expect(Number((await pg('information_schema.tables').where({ table_schema: 'public' }).count({ n: '*' }))[0].n)).toBe(0);
      // SQLite keeps any value in any column; PostgreSQL's types refuse it during the copy, which
      // commits nothing (the target keeps only svc's empty tables, ready for a copy).
      await refused(await crafted(backup, 'type', ["UPDATE workspaces SET allowance_articles = 'lots' WHERE name = 'two.example'"]), 'holds rows of workspaces the target database refuses, so nothing was changed: invalid input syntax for type integer');
      expect(Number((await pg('workspaces').count({ n: '*' }))[0].n)).toBe(0);
    } finally {
      await pg.destroy();
    }
  }, 60_000);
});
