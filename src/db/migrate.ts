import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import type { Db } from './connect.js';
import { cannotReach, databaseIdentity } from './errors.js';
import { withMigrationLock } from './locks.js';

// migrations/ sits next to src/ both in the source tree and in dist/.
const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** .ts under Vitest, .js from dist/. */
const EXT = path.extname(fileURLToPath(import.meta.url));
const source: Knex.MigrationSource<string> = {
  async getMigrations() {
    return readdirSync(MIGRATIONS_DIR)
      .filter((f) => f.endsWith(EXT) && !f.endsWith('.d.ts'))
      .sort();
  },
  getMigrationName: (file) => file.replace(/\.(ts|js)$/, ''),
  getMigration: async (file) => (await import(pathToFileURL(path.join(MIGRATIONS_DIR, file)).href)) as Knex.Migration,
};

const options = (): Knex.MigratorConfig => ({ migrationSource: source, tableName: 'knex_migrations' });
const LOCK_TABLE = 'knex_migrations_lock';

/** `daemons`: on the live database (not a copy), the daemons serving it now, each described for a person (serving-daemons.ts). */
export interface MigrateOptions {
  log?: Logger;
  daemons?: () => Promise<string[]>;
}

/** A database up to date, with knex's lock table clean, is answered from a few reads, unlocked. */
export async function migrateLatest(db: Db, opts: MigrateOptions = {}): Promise<string[]> {
  return reachable(db, async () => {
    const state = refuseNewer(await knexState(db));
    if (lockClean(state.lockRows) && state.pending.length === 0) return [];
    return locked(db, opts.log, async ({ pending }) => {
      await refuseWhileServed(pending, opts.daemons, 'migrate');
      return db.migrate.latest(options());
    });
  });
}

/**
 * A migration that daemons of the previous release cannot run beside (migrations/README.md, rule 5) exports
 * `breaksRunningDaemons`: what they would fail at. Applying it, or undoing it under daemons of its own release,
 * waits until none serves the database.
 */
async function refuseWhileServed(names: string[], daemons: MigrateOptions['daemons'], verb: 'migrate' | 'roll back'): Promise<void> {
  if (!daemons) return;
  const breaking = await breakingMigrations(names);
  const running = breaking.length > 0 ? await daemons() : [];
  if (running.length === 0) return;
  const [what, where] =
    verb === 'migrate'
      ? [`every svc command migrates it first, and the running (older) daemons cannot serve what this release changes (${breaking.map((m) => `${m.name}: ${m.breaksRunningDaemons}`).join('; ')})`, '"Upgrade" in docs/deployment.md']
      : [`the running daemons cannot serve the database once ${breaking.map((m) => m.name).join(', ')} ${breaking.length === 1 ? 'is' : 'are'} undone`, '"Going back a release" in docs/operations.md'];
  throw new AppError('daemons_running', 409, `Refusing to ${verb} while svc daemons serve this database: ${what}. Serving now: ${running.join(', ')}. Nothing was changed.`, {
    hint: `Stop every svc daemon serving this database and wait for its process to exit (this cannot be done one daemon at a time), then run this again. On PostgreSQL a daemon that was killed counts until its last heartbeat is a minute old. See ${where}.`,
    details: { migrations: breaking.map((m) => m.name), daemons: running },
  });
}

/** Those of `names` (known migrations) that daemons of the previous release cannot run beside, with what they would fail at. */
export async function breakingMigrations(names: string[]): Promise<Array<{ name: string; breaksRunningDaemons: string }>> {
  const modules = await Promise.all(names.map(async (name) => ({ name, breaksRunningDaemons: ((await source.getMigration(`${name}${EXT}`)) as { breaksRunningDaemons?: string }).breaksRunningDaemons })));
  return modules.filter((m): m is { name: string; breaksRunningDaemons: string } => Boolean(m.breaksRunningDaemons));
}

/** The batch holding it is the install itself. */
const INSTALL_MIGRATION = '2026-11-22-0300-create-core-tables';

/**
 * Never the install batch: that would drop every table (going back that far is a restore).
 * `confirm` sees the batch first; read again under the lock, it must be the same.
 */
export async function rollbackLastBatch(db: Db, opts: MigrateOptions & { confirm?: (batch: string[]) => Promise<void> } = {}): Promise<string[]> {
  return reachable(db, async () => {
    const batch = lastBatch(refuseNewer(await knexState(db)));
    if (batch.length === 0) return [];
    if (batch.includes(INSTALL_MIGRATION)) {
      throw new AppError(
        'rollback_refused',
        409,
        `Refusing to roll back: the last batch of migrations is the install itself (${batch.length} migration${batch.length === 1 ? '' : 's'}, ${INSTALL_MIGRATION} among them); undoing it would drop every table with all svc data. Nothing was changed.`,
        { hint: 'To go back to an earlier state, stop the daemon and restore a backup: svc restore FILE (docs/operations.md, "Going back a release").', details: { batch } },
      );
    }
    await refuseWhileServed(batch, opts.daemons, 'roll back');
    await opts.confirm?.(batch);
    return locked(db, opts.log, async (state) => {
      if (lastBatch(state).join() !== batch.join()) throw new AppError('conflict', 409, 'The migrations changed while you confirmed (another svc migrated this database): nothing was rolled back', { hint: 'Run svc migrate --status, then the rollback again.' });
      await refuseWhileServed(batch, opts.daemons, 'roll back');
      return db.migrate.rollback(options(), false);
    });
  });
}

export async function isNewDatabase(db: Db): Promise<boolean> {
  return !(await db.schema.hasTable('knex_migrations'));
}

/** The migrations of the last batch, newest first (the order a rollback undoes them). */
function lastBatch({ rows }: KnexState): string[] {
  const last = Math.max(...rows.map((r) => r.batch));
  return rows.filter((r) => r.batch === last).map((r) => r.name).reverse();
}

/** For the migration tests: 'all' undoes every one. */
export async function migrateStep(db: Db, step: 'up' | 'down' | 'all'): Promise<string[]> {
  const run = () => (step === 'all' ? db.migrate.rollback(options(), true) : db.migrate[step](options()));
  return reachable(db, () => locked(db, undefined, run));
}

export type MigrationStatus = Awaited<ReturnType<typeof migrationStatus>>;

/** Read without creating or locking anything; `unknown`: applied by a newer svc. */
export async function migrationStatus(db: Db) {
  return reachable(db, async () => {
    const { applied, pending, unknown } = await knexState(db);
    return { applied: applied.filter((m) => !unknown.includes(m)), pending, unknown };
  });
}

type KnexState = Awaited<ReturnType<typeof knexState>>;

/** Read without creating anything: `rows` and `applied` oldest first ([] before knex created its tables), `unknown` applied by a newer svc, `lockRows` null when that table does not exist (yet). */
async function knexState(db: Db) {
  const known = (await source.getMigrations([])).map(source.getMigrationName);
  const created = !(await isNewDatabase(db));
  const rows: Array<{ name: string; batch: number }> = created ? await db('knex_migrations').orderBy('id').select('name', 'batch') : [];
  const applied = rows.map((r) => r.name);
  const lockRows: Array<{ is_locked: number | null }> | null = created && (await db.schema.hasTable(LOCK_TABLE)) ? await db(LOCK_TABLE).select('is_locked') : null;
  const unknown = applied.filter((m) => !known.includes(m));
  return { rows, applied, pending: known.filter((m) => !applied.includes(m)), unknown, lockRows };
}

const lockClean = (rows: KnexState['lockRows']) => rows !== null && rows.length === 1 && Number(rows[0].is_locked) === 0;

function refuseNewer(state: KnexState): KnexState {
  const { unknown } = state;
  if (unknown.length === 0) return state;
  throw new AppError(
    'database_newer',
    409,
    `This database was migrated by a newer version of svc: it has ${unknown.length === 1 ? 'a migration' : `${unknown.length} migrations`} this svc does not know (${unknown.join(', ')})`,
    {
      hint: 'Upgrade svc here to the version that applied it, or a newer one. Daemons of this version that are already running keep working; see "Rolling upgrades" in the README.',
      details: { unknown },
    },
  );
}

/**
 * Holding our lock nobody migrates, so knex's lock table must hold one row, unlocked: anything else
 * is left over (a migrator died, two raced on an empty database) and would make knex refuse to run.
 */
function locked(db: Db, log: Logger | undefined, fn: (state: KnexState) => Promise<[number, string[]]>): Promise<string[]> {
  return withMigrationLock(db, log, async () => {
    const state = refuseNewer(await knexState(db));
    const { lockRows } = state;
    if (lockRows && !lockClean(lockRows)) {
      // One transaction (knex's forceFreeMigrationsLock is two statements): a run that dies halfway leaves the rows it found.
      await db.transaction(async (trx) => {
        await trx(LOCK_TABLE).del();
        await trx(LOCK_TABLE).insert({ is_locked: 0 });
      });
      log?.warn({ rows: lockRows.length, locked: lockRows.filter((r) => Number(r.is_locked) !== 0).length }, `repaired knex's migration lock table (${LOCK_TABLE}): it was left locked or doubled by an earlier run`);
    }
    return fn(state).then(([, names]) => names);
  });
}

/** Every command reaches the database first through here: "cannot be reached" becomes one clear line (db/errors.ts). */
async function reachable<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const { client, connection } = db.client.config as { client: string; connection?: { connectionString?: string; filename?: string } };
    throw cannotReach(databaseIdentity({ client, url: connection?.connectionString, filename: connection?.filename }), err) ?? err;
  }
}
