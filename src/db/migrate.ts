import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import type { Db } from './connect.js';
import { cannotReach, databaseOf } from './errors.js';
import { withMigrationLock } from './locks.js';

// migrations/ sits next to src/ both in the source tree and in dist/.
const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** migrations/ next to the running code: .ts under Vitest, .js from dist/. */
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

const source = new FolderSource();
const options = (): Knex.MigratorConfig => ({ migrationSource: source, tableName: 'knex_migrations' });
const LOCK_TABLE = 'knex_migrations_lock';

export interface MigrateOptions {
  /** Where waiting for another migrator and repairs of knex's lock table are reported. */
  log?: Logger;
}

/**
 * Apply every pending migration, under svc's migration lock (locks.ts). A database already up to
 * date, with knex's lock table clean, has nothing to race on: answered from a few reads, unlocked.
 */
export async function migrateLatest(db: Db, opts: MigrateOptions = {}): Promise<string[]> {
  return reachable(db, async () => {
    const known = await knownMigrations();
    const state = await knexState(db);
    refuseNewer(state.applied, known);
    if (lockClean(state.lockRows) && known.every((m) => state.applied.includes(m))) return [];
    const [, applied] = (await locked(db, opts, () => db.migrate.latest(options()))) as [number, string[]];
    return applied;
  });
}

/** The migration that creates the core tables: the batch holding it is the install itself. */
export const INSTALL_MIGRATION = '2026-11-22-0300-create-core-tables';

/**
 * `svc migrate --rollback`: undo the last batch of migrations, never the install batch (that
 * would drop every table; going back that far is a restore of a backup). `confirm` sees the
 * batch before anything changes; the batch is read again under the lock and must be the same.
 */
export async function rollbackLastBatch(db: Db, opts: MigrateOptions & { confirm?: (batch: string[]) => Promise<void> } = {}): Promise<string[]> {
  return reachable(db, async () => {
    const batch = await lastBatch(db);
    if (batch.length === 0) return [];
    if (batch.includes(INSTALL_MIGRATION)) throw installBatch(batch);
    await opts.confirm?.(batch);
    const [, rolledBack] = (await locked(db, opts, async () => {
      const now = await lastBatch(db);
      if (now.join() !== batch.join()) throw new AppError('conflict', 409, 'The migrations changed while you confirmed (another svc migrated this database): nothing was rolled back', { hint: 'Run svc migrate --status, then the rollback again.' });
      return db.migrate.rollback(options(), false);
    })) as [number, string[]];
    return rolledBack;
  });
}

/** Whether no migration was ever applied to this database (it is new, or holds nothing of svc's). */
export async function isNewDatabase(db: Db): Promise<boolean> {
  return !(await db.schema.hasTable('knex_migrations'));
}

/** The migrations of the last batch, newest first (the order a rollback undoes them). */
async function lastBatch(db: Db): Promise<string[]> {
  if (!(await db.schema.hasTable('knex_migrations'))) return [];
  const rows: Array<{ name: string }> = await db('knex_migrations')
    .where('batch', db('knex_migrations').max('batch'))
    .orderBy('id', 'desc')
    .select('name');
  refuseNewer((await knexState(db)).applied, await knownMigrations());
  return rows.map((r) => r.name);
}

const installBatch = (batch: string[]) =>
  new AppError(
    'rollback_refused',
    409,
    `Refusing to roll back: the last batch of migrations is the install itself (${batch.length} migration${batch.length === 1 ? '' : 's'}, ${INSTALL_MIGRATION} among them); undoing it would drop every table with all svc data. Nothing was changed.`,
    { hint: 'To go back to an earlier state, stop the daemon and restore a backup: svc restore FILE (docs/operations.md, "Going back a release").', details: { batch } },
  );

/** Apply the next pending migration ('up'), undo the newest ('down') or every one ('all'): what the migration tests run. */
export async function migrateStep(db: Db, step: 'up' | 'down' | 'all'): Promise<string[]> {
  const run = () => (step === 'all' ? db.migrate.rollback(options(), true) : db.migrate[step](options()));
  const [, done] = (await reachable(db, () => locked(db, {}, run))) as [number, string[]];
  return done;
}

export interface MigrationStatus {
  /** Applied migrations this code knows, oldest first. */
  applied: string[];
  /** Migrations of this code not applied yet. */
  pending: string[];
  /** Applied migrations this code does not know: a newer svc migrated the database. */
  unknown: string[];
}

/** Where the database stands, read without creating or locking anything. */
export async function migrationStatus(db: Db): Promise<MigrationStatus> {
  return reachable(db, async () => {
    const known = await knownMigrations();
    const { applied } = await knexState(db);
    const done = new Set(applied);
    return {
      applied: applied.filter((m) => known.includes(m)),
      pending: known.filter((m) => !done.has(m)),
      unknown: applied.filter((m) => !known.includes(m)),
    };
  });
}

async function knownMigrations(): Promise<string[]> {
  return (await source.getMigrations()).map((f) => source.getMigrationName(f));
}

interface KnexState {
  /** Applied migration names, oldest first ([] before knex created its tables). */
  applied: string[];
  /** The rows of knex's lock table; null when it does not exist (yet). */
  lockRows: Array<{ is_locked: number | null }> | null;
}

/** knex's own tables as they are, read without creating anything. */
async function knexState(db: Db): Promise<KnexState> {
  if (!(await db.schema.hasTable('knex_migrations'))) return { applied: [], lockRows: null };
  const rows: Array<{ name: string }> = await db('knex_migrations').orderBy('id').select('name');
  const lockRows = (await db.schema.hasTable(LOCK_TABLE)) ? await db(LOCK_TABLE).select('is_locked') : null;
  return { applied: rows.map((r) => r.name), lockRows };
}

const lockClean = (rows: KnexState['lockRows']) => rows !== null && rows.length === 1 && Number(rows[0].is_locked) === 0;

function refuseNewer(applied: string[], known: string[]): void {
  const unknown = applied.filter((m) => !known.includes(m));
  if (unknown.length > 0) throw databaseNewer(unknown);
}

/** Under svc's lock: refuse a database newer than this code, mend knex's lock table, run fn. */
function locked<T>(db: Db, opts: MigrateOptions, fn: () => Promise<T>): Promise<T> {
  return withMigrationLock(db, opts.log, async () => {
    const state = await knexState(db);
    refuseNewer(state.applied, await knownMigrations());
    if (state.lockRows && !lockClean(state.lockRows)) await repairKnexLock(db, state.lockRows, opts.log);
    return fn();
  });
}

/**
 * knex's lock table must hold exactly one row, unlocked, whenever nobody migrates. Holding our
 * own lock we know nobody does, so anything else is left over (a migrator that died, or two that
 * raced on an empty database) and would make knex refuse every run.
 */
async function repairKnexLock(db: Db, rows: NonNullable<KnexState['lockRows']>, log: Logger | undefined): Promise<void> {
  await db.transaction(async (trx) => {
    await trx(LOCK_TABLE).del();
    await trx(LOCK_TABLE).insert({ is_locked: 0 });
  });
  log?.warn({ rows: rows.length, locked: rows.filter((r) => Number(r.is_locked) !== 0).length }, `repaired knex's migration lock table (${LOCK_TABLE}): it was left locked or doubled by an earlier run`);
}

const databaseNewer = (unknown: string[]) =>
  new AppError(
    'database_newer',
    409,
    `This database was migrated by a newer version of svc: it has ${unknown.length === 1 ? 'a migration' : `${unknown.length} migrations`} this svc does not know (${unknown.join(', ')})`,
    {
      hint: 'Upgrade svc here to the version that applied it, or a newer one. Daemons of this version that are already running keep working; see "Rolling upgrades" in the README.',
      details: { unknown },
    },
  );

/** Every command reaches the database first through these functions: "cannot be reached" becomes one clear line here (db/errors.ts). */
async function reachable<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw cannotReach(databaseOf(db), err) ?? err;
  }
}
