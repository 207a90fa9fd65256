import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import type { Config } from '../config/schema.js';
import { ensurePrivateDir, ensurePrivateFile } from './files.js';

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
      compileSqlOnError: false,
    });
  }
  // Created private before SQLite opens it: SQLite would make it 0644 minus the umask, and its
  // -wal and -shm files take the database file's mode.
  ensurePrivateDir(path.dirname(database.filename));
  ensurePrivateFile(database.filename);
  return knexFactory({
    client: 'sqlite3',
    log: QUIET,
    compileSqlOnError: false,
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

// compileSqlOnError: false: knex prefixes a failing query's SQL to the driver's error message; with
// its placeholders, never its bound values (password hashes, tokens), which would reach the
// CLI's stderr and the log (issue 22).
// knex prints pool errors itself; ours reach the operator once, as an AppError (db/migrate.ts).
const QUIET = { warn() {}, error() {}, debug() {}, deprecate() {} };
