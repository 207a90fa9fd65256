import path from 'node:path';
import { AppError, FAILURE_WORDS, type FailureClass, conflict, toAppError } from '../errors.js';
import type { Db } from './connect.js';
import { withoutPassword } from './moved.js';

/** Unique-constraint violation on SQLite or PostgreSQL. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; errno?: number; message?: string } | null;
  return e?.code === '23505' || (e?.code === 'SQLITE_CONSTRAINT' && /UNIQUE/i.test(e.message ?? ''));
}

export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return e?.code === '23503' || (e?.code === 'SQLITE_CONSTRAINT' && /FOREIGN KEY/i.test(e.message ?? ''));
}

/** Turn a driver error into an AppError with a message for a person; rethrow anything else. */
export function translateDbError(err: unknown, messages: { unique?: string; foreignKey?: string } = {}): never {
  if (err instanceof AppError) throw err;
  if (isUniqueViolation(err)) throw conflict(messages.unique ?? 'That already exists', { cause: err });
  if (isForeignKeyViolation(err)) {
    throw new AppError('invalid_reference', 400, messages.foreignKey ?? 'That refers to something that does not exist', { cause: err });
  }
  throw err;
}

/** Which database the settings name: the PostgreSQL URL without its password, or sqlite:<file>. */
export const databaseIdentity = (database: { client: string; url?: string; filename?: string }) =>
  database.client === 'pg' ? withoutPassword(database.url ?? '') : `sqlite:${path.resolve(database.filename ?? '')}`;

/** Which database an open handle is (databaseIdentity of its connection). */
export function databaseOf(db: Db): string {
  const { client, connection } = db.client.config as { client: string; connection?: { connectionString?: string; filename?: string } };
  return databaseIdentity({ client, url: connection?.connectionString, filename: connection?.filename });
}

/**
 * The operator's words for a database that cannot serve, naming which one (never its password)
 * and why: "Cannot reach the database postgres://svc@db:5432/svc: it refused the connection
 * (refused)". Null for any other error. `check`: what to check, when the caller knows where the
 * settings came from (the CLI).
 */
export function cannotReach(database: string, err: unknown, check?: string): AppError | null {
  const e = toAppError(err);
  const failure = e.details?.failure as FailureClass | undefined;
  if (e.status < 500 || e.details?.dependency !== 'database' || !failure) return null;
  // Named already (at the first contact): the caller who knows the settings' source says what to check.
  const named = e.details.database !== undefined;
  if (named && (!check || failure === 'corrupt')) return e;
  const reason = named ? String(e.details.reason ?? '') : e.hint ?? '';
  const verb = e.code === 'database_corrupt' ? 'Cannot use' : 'Cannot reach';
  // Without the caller's settings their source is unknown: the settings are named, not a variable that may not be where they came from.
  check ??= database.startsWith('sqlite:') ? 'check the settings that name it (dataDir, database.filename), the file and its directory' : 'check the setting that names it (database.url) and that the server accepts svc';
  return new AppError(e.code, e.status, named ? e.message : `${verb} the database ${database}: it ${FAILURE_WORDS[failure]} (${failure})`, {
    expose: true,
    cause: named ? e.cause : err,
    hint: failure === 'corrupt' ? e.hint : [reason, check].filter(Boolean).join('; '),
    details: { ...e.details, database, reason },
  });
}

/**
 * A command that only reads found no svc database where its settings point: no SQLite file
 * (`why`: why that file, config/load.ts sqliteChosenBy), or a PostgreSQL database without svc's
 * tables. It says so and creates none: opening the file or migrating would leave an empty
 * database behind that the operator never asked for.
 */
export function noSvcDatabase(filename: string, why: string, nothingTo?: string): AppError {
  return new AppError('database_not_found', 404, `There is no svc database at ${filename} (${why})${nothingTo ? `: nothing to ${nothingTo}` : ''}`, {
    hint: 'To create it: svc init (the database, a workspace and its first user) or svc migrate (the tables only); svc serve creates it too. If the data is elsewhere, point svc at it: dataDir or database.url in the config file the daemon reads (svc doctor names the one this command read).',
    details: { database: filename },
  });
}
