import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
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
  const [, applied] = (await db.migrate.latest(options())) as [number, string[]];
  return applied;
}

export async function migrateRollback(db: Db, all = false): Promise<string[]> {
  const [, rolledBack] = (await db.migrate.rollback(options(), all)) as [number, string[]];
  return rolledBack;
}

export async function migrationStatus(db: Db): Promise<{ applied: string[]; pending: string[] }> {
  const [completed, pending] = (await db.migrate.list(options())) as [Array<{ name: string } | string>, Array<string | { file: string }>];
  return {
    applied: completed.map((c) => (typeof c === 'string' ? c : c.name)),
    pending: pending.map((p) => (typeof p === 'string' ? p : p.file).replace(/\.(ts|js)$/, '')),
  };
}
