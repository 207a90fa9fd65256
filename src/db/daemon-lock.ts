import path from 'node:path';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { ensurePrivateDir } from './files.js';
import { type HeldLock, trySqliteLock } from './sqlite-lock.js';

/** The sidecar file a daemon holds locked for as long as it serves a SQLite database. */
export const sqliteDaemonLockFile = (filename: string) => `${filename}-daemon.lock`;

/**
 * Claim the database for one daemon (issue 12). SQLite is the single-daemon default: a second
 * `svc serve` on the same file is refused, while CLI commands (which never claim) keep working
 * beside the daemon. The lock dies with the process (sqlite-lock.ts), so a crashed daemon never
 * blocks the next start. PostgreSQL takes any number of daemons: nothing to claim.
 */
export async function claimDatabase(database: Config['database']): Promise<HeldLock> {
  if (database.client === 'pg') return { release: async () => {} };
  ensurePrivateDir(path.dirname(database.filename));
  const file = sqliteDaemonLockFile(database.filename);
  const lock = await trySqliteLock(file).catch((err: Error) => {
    throw new AppError('database_unavailable', 503, `Cannot open ${file}: ${err.message}`, {
      hint: 'Check SVC_DATA_DIR / database.filename and the file permissions.',
      cause: err,
    });
  });
  if (lock) return lock;
  throw new AppError('database_in_use', 409, `Another svc daemon is already serving the SQLite database ${database.filename}`, {
    hint: 'One daemon per SQLite file: stop the other one first (CLI commands may run beside it). To run several daemons, use PostgreSQL (SVC_DATABASE_URL); see "Several daemons" in the README.',
  });
}
