import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Either the root handle or a transaction: what store functions accept. */
export type Queryable = Knex | Knex.Transaction;

// PostgreSQL returns BIGINT/COUNT as strings by default; our counts fit in a JS number.
pg.types.setTypeParser(20, (v: string) => Number(v));

/**
 * Open the database named by the config. SQLite runs in WAL mode with a busy timeout and
 * foreign keys on, so the CLI and a running daemon can share one file.
 */
export function openDb(database: Config['database']): Db {
  if (database.client === 'pg') {
    return knexFactory({
      client: 'pg',
      connection: database.url,
      pool: { min: 0, max: database.poolMax },
      log: QUIET,
    });
  }
  ensureDir(path.dirname(database.filename));
  return knexFactory({
    client: 'sqlite3',
    log: QUIET,
    connection: { filename: database.filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: database.poolMax,
      afterCreate(conn: { run: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, c: unknown) => void) {
        const pragmas = ['PRAGMA journal_mode = WAL', 'PRAGMA busy_timeout = 5000', 'PRAGMA foreign_keys = ON', 'PRAGMA synchronous = NORMAL'];
        const next = (i: number): void => {
          if (i === pragmas.length) return done(null, conn);
          conn.run(pragmas[i], (err) => (err ? done(err, conn) : next(i + 1)));
        };
        next(0);
      },
    },
  });
}

export const isPostgres = (db: Queryable): boolean => db.client.config.client === 'pg';

// knex prints pool errors itself; ours reach the operator once, as an AppError (db/migrate.ts).
const QUIET = { warn() {}, error() {}, debug() {}, deprecate() {} };

/**
 * mkdir -p, one level at a time: Node's recursive mkdirSync never returns under /proc, and an
 * operator who points SVC_DATA_DIR at a file should be told so, not shown a stack.
 */
function ensureDir(dir: string): void {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return;
  if (stat) throw dataDirError(dir, 'it exists and is not a directory');
  const parent = path.dirname(dir);
  if (parent !== dir) ensureDir(parent);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw dataDirError(dir, (err as Error).message);
  }
}

const dataDirError = (dir: string, why: string) =>
  new AppError('database_unavailable', 503, `Cannot create the data directory ${dir}: ${why}`, {
    hint: 'Set SVC_DATA_DIR (or dataDir in config.yaml) to a writable directory.',
  });
