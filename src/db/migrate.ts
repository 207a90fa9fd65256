import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';
import type { Db } from './connect.js';

// migrations/ sits next to src/ both in the source tree and in dist/.
const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Lists migrations/ next to the running code: .ts under Vitest, .js from dist/. */
class FolderSource implements Knex.MigrationSource<string> {
  async getMigrations(): Promise<string[]> {
    const ext = path.extname(fileURLToPath(import.meta.url)); // .ts or .js
    return readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith(ext) && !f.endsWith('.d.ts'))
      .sort();
  }
  getMigrationName(file: string): string {
    return file.replace(/\.(ts|js)$/, '');
  }
  async getMigration(file: string): Promise<Migration> {
    return (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as Migration;
  }
}

const options = (): Knex.MigratorConfig => ({ migrationSource: new FolderSource(), tableName: 'knex_migrations' });

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await reachable(db, () => db.migrate.latest(options()))) as [number, string[]];
  return applied;
}

export async function migrateRollback(db: Db, all = false): Promise<string[]> {
  const [, rolledBack] = (await reachable(db, () => db.migrate.rollback(options(), all))) as [number, string[]];
  return rolledBack;
}

/** Undo only the most recent migration; returns its name (tests run each down() alone). */
export async function migrateDown(db: Db): Promise<string[]> {
  const [, done] = (await reachable(db, () => db.migrate.down(options()))) as [number, string[]];
  return done;
}

/** Apply only the next pending migration. */
export async function migrateUp(db: Db): Promise<string[]> {
  const [, done] = (await reachable(db, () => db.migrate.up(options()))) as [number, string[]];
  return done;
}

export async function migrationStatus(db: Db): Promise<{ applied: string[]; pending: string[] }> {
  const [completed, pending] = (await reachable(db, () => db.migrate.list(options()))) as [Array<{ name: string } | string>, Array<string | { file: string }>];
  return {
    applied: completed.map((c) => (typeof c === 'string' ? c : c.name)),
    pending: pending.map((p) => (typeof p === 'string' ? p : p.file).replace(/\.(ts|js)$/, '')),
  };
}

// Driver codes that mean "cannot reach or open the database" rather than a bug in a migration.
const UNREACHABLE = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET',
  'SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_CORRUPT',
  '28P01', '28000', '3D000', '57P03',
]);

/**
 * Every command reaches the database first through these functions (createApp migrates), so
 * this is where "the database cannot be opened" becomes one clear line for the operator.
 */
async function reachable<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err as { code?: string; message?: string; name?: string };
    if (UNREACHABLE.has(e?.code ?? '') || e?.name === 'KnexTimeoutError') {
      const cfg = db.client.config as { client: string; connection?: { filename?: string } | string };
      const where = cfg.client === 'pg' ? 'PostgreSQL' : `SQLite file ${(cfg.connection as { filename?: string })?.filename}`;
      throw new AppError('database_unavailable', 503, `Cannot open the database (${where}): ${(e.message ?? String(err)).split('\n')[0]}`, {
        hint: cfg.client === 'pg' ? 'Check SVC_DATABASE_URL and that the server is running.' : 'Check SVC_DATA_DIR / database.filename and the file permissions.',
        cause: err,
      });
    }
    throw err;
  }
}
